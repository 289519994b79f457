// SPDX-License-Identifier: GPL-2.0
/*
 * The hook table against synthetic kernels: a BTF built here with every
 * target, then with one function missing, renamed or of another
 * prototype, and a kallsyms file to match. Also: every program in the
 * built BPF objects has its row, and every row its program (the objects
 * are only opened, never loaded).
 */
#include "unit.h"

#include "hooks.h"
#include "json_writer.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EV(t) (1u << (t))
#define TP_ONLY (EV(IPCW_SHM_ATTACH) | EV(IPCW_SHM_DETACH) |		\
		 EV(IPCW_SHM_ORPHAN) | EV(IPCW_SEM_UNDO))
#define ALL_DETAILS (DETAIL_CREATE_STAGE | DETAIL_CREATE_HUGETLB | \
		     DETAIL_EXISTING_SMALLER | DETAIL_SHMAT_SIZE | \
		     DETAIL_DESTROY_CAUSE | DETAIL_SEM_NSEMS | \
		     DETAIL_SEM_STAGE | DETAIL_EXISTING_FEWER | \
		     DETAIL_SEM_DESTROY_CAUSE | DETAIL_SEM_NSEMS_IPC | \
		     DETAIL_SEM_NSEMS_IA32)

#if defined(__x86_64__)
#define IA32_NSEMS DETAIL_SEM_NSEMS_IA32
#else
#define IA32_NSEMS 0
#endif

/* How the synthetic kernel differs from the one the table expects. */
struct kernel_spec {
	const char *drop;	/* a function neither in BTF nor kallsyms */
	const char *unlisted;	/* in BTF, not in kallsyms */
	const char *reshaped;	/* in both, with nargs_delta more params */
	int nargs_delta;
	bool no_tracepoints;
};

struct fake_kernel {
	struct btf *btf;
	char kallsyms[64];
	struct hook_state st[128];
};

/* The names hooks_probe() looks up: the syscall prefix, bpf_lsm_. */
static const char *target_of(size_t i)
{
	static struct hook_state names[128];
	static bool done;

	if (!done) {
		hooks_probe(NULL, NULL, names);
		done = true;
	}
	return names[i].target;
}

/* A target's parameter count: the most any row reads. */
static int params_of(const char *target)
{
	int n = 0;
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i].kind != HOOK_TRACEPOINT &&
		    !strcmp(target_of(i), target) && hooks[i].nargs > n)
			n = hooks[i].nargs;
	return n;
}

static bool seen_before(size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (hooks[j].kind == hooks[i].kind &&
		    !strcmp(target_of(j), target_of(i)))
			return true;
	return false;
}

/* Parameters are part of the FUNC_PROTO type: its id is returned. */
static int add_proto(struct btf *btf, int ret, int params)
{
	int id = btf__add_func_proto(btf, ret), p;

	assert_true(id > 0);
	for (p = 0; p < params; p++)
		assert_int_equal(btf__add_func_param(btf, "a", ret), 0);
	return id;
}

/* @name is @want, or @want behind a syscall prefix (__x64_sys_shmctl). */
static bool is_target(const char *name, const char *want)
{
	size_t n = strlen(name), w = want ? strlen(want) : 0;

	if (!want)
		return false;
	return !strcmp(name, want) ||
	       (n > w && name[n - w - 1] == '_' && !strcmp(name + n - w, want));
}

static void make_kernel(struct fake_kernel *k, const struct kernel_spec *spec)
{
	FILE *f;
	size_t i;
	int fd, integer, proto;

	assert_true(nhooks <= sizeof(k->st) / sizeof(k->st[0]));
	k->btf = btf__new_empty();
	assert_non_null(k->btf);
	integer = btf__add_int(k->btf, "int", 4, BTF_INT_SIGNED);
	assert_true(integer > 0);
	strcpy(k->kallsyms, "/tmp/ipcwatch-kallsyms-XXXXXX");
	fd = mkstemp(k->kallsyms);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	for (i = 0; i < nhooks; i++) {
		const char *name = target_of(i);
		int n;

		if (seen_before(i) || is_target(name, spec->drop))
			continue;
		if (hooks[i].kind == HOOK_TRACEPOINT) {
			char td[96];

			if (spec->no_tracepoints &&
			    hooks[i].set == HOOKS_TRACEPOINT)
				continue;
			n = hooks[i].nargs + 1;
			if (is_target(name, spec->reshaped))
				n += spec->nargs_delta;
			/* void (*)(void *__data, TP_PROTO) */
			proto = btf__add_ptr(k->btf, add_proto(k->btf, 0, n));
			snprintf(td, sizeof(td), "btf_trace_%s", name);
			assert_true(btf__add_typedef(k->btf, td, proto) > 0);
			continue;
		}
		n = params_of(name);
		if (is_target(name, spec->reshaped))
			n += spec->nargs_delta;
		/* a function already added for another kind of hook */
		if (btf__find_by_name_kind(k->btf, name, BTF_KIND_FUNC) > 0)
			continue;
		proto = add_proto(k->btf, integer, n);
		assert_true(btf__add_func(k->btf, name, BTF_FUNC_GLOBAL,
					  proto) > 0);
		if (!is_target(name, spec->unlisted))
			fprintf(f, "ffffffff81000000 T %s\n", name);
	}
	fprintf(f, "ffffffff81000000 T newseg.isra.0\n");
	assert_int_equal(fclose(f), 0);
	hooks_probe(k->btf, k->kallsyms, k->st);
}

static void free_kernel(struct fake_kernel *k)
{
	btf__free(k->btf);
	unlink(k->kallsyms);
}

static const struct hook_state *state_of(const struct fake_kernel *k,
					 const char *prog)
{
	const struct hook *h = hook_by_prog(prog);

	assert_non_null(h);
	return &k->st[h - hooks];
}

static void unavailable(const struct fake_kernel *k, enum ipcw_mode mode,
			char *buf, size_t len)
{
	hooks_unavailable_line(mode, k->st, buf, len);
}

static void hooks_complete_kernel(void **state)
{
	struct fake_kernel k;
	char line[1024];
	size_t i;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ 0 });
	for (i = 0; i < nhooks; i++)
		if (k.st[i].status != HOOK_OK)
			fail_msg("%s on %s: %d", hooks[i].prog, k.st[i].target,
				 k.st[i].status);
	assert_true(hooks_have_tracepoints(k.st));
	assert_int_equal(hooks_events(IPCW_MODE_TRACEPOINT, k.st),
			 IPCW_ALL_EVENTS);
	assert_int_equal(hooks_events(IPCW_MODE_FENTRY, k.st),
			 IPCW_ALL_EVENTS & ~TP_ONLY);
	assert_int_equal(hooks_events(IPCW_MODE_KPROBE, k.st),
			 IPCW_ALL_EVENTS & ~TP_ONLY);
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st), ALL_DETAILS);
	assert_int_equal(hooks_details(IPCW_MODE_KPROBE, k.st), ALL_DETAILS);
	assert_false(hooks_unavailable_line(IPCW_MODE_TRACEPOINT, k.st, line,
					    sizeof(line)));
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_string_equal(line,
			    "shm_attach (needs the ipc tracepoints of kernel-patches/); "
			    "shm_detach (needs the ipc tracepoints of kernel-patches/); "
			    "shm_orphan (needs the ipc tracepoints of kernel-patches/); "
			    "sem_undo (needs the ipc tracepoints of kernel-patches/)");
	free_kernel(&k);
}

/*
 * semget(): the count check's function gone loses only those refusals;
 * the set's creation and the other details stay.
 */
static void hooks_sem_create_details(void **state)
{
	struct fake_kernel k;
	char line[1024];
	uint32_t events, details;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .unlisted = "sys_semget" });
	events = hooks_events(IPCW_MODE_FENTRY, k.st);
	details = hooks_details(IPCW_MODE_FENTRY, k.st);
	assert_true(events & EV(IPCW_SEM_CREATE));
	/* "sys_semget" names the ia32 wrapper too, where there is one */
	assert_int_equal(details, ALL_DETAILS & ~DETAIL_SEM_NSEMS & ~IA32_NSEMS);
	assert_false(hook_wanted(hook_by_prog("fe_sys_semget"),
				 IPCW_MODE_FENTRY, events, details));
	assert_true(hook_wanted(hook_by_prog("fx_security_sem_alloc"),
				IPCW_MODE_FENTRY, events, details));
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	/* the wrapper's prefix is the build's architecture's */
	assert_non_null(strstr(line, "; sem_create refusals bad_nsems, "
				     "over_semmsl ("));
	assert_non_null(strstr(line, "sys_semget: not in kallsyms (inlined "
				     "or renamed))"));
	free_kernel(&k);
	/* newary() gone: no creation event at all, the details unwanted */
	make_kernel(&k, &(struct kernel_spec){ .drop = "newary" });
	events = hooks_events(IPCW_MODE_FENTRY, k.st);
	assert_false(events & EV(IPCW_SEM_CREATE));
	assert_true(events & EV(IPCW_SEM_DESTROY));
	assert_false(hook_wanted(hook_by_prog("fx_sem_more_checks"),
				 IPCW_MODE_FENTRY, events,
				 hooks_details(IPCW_MODE_FENTRY, k.st)));
	assert_false(hooks_events(IPCW_MODE_KPROBE, k.st) &
		     EV(IPCW_SEM_CREATE));
	free_kernel(&k);
}

/*
 * freeary() of the patched kernel takes the cause as a third parameter:
 * harmless to fentry and kprobe, which read two. The cause hooks gone,
 * the event stays and its cause is unexplained.
 */
static void hooks_sem_destroy(void **state)
{
	struct fake_kernel k;
	uint32_t details;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .reshaped = "freeary",
					       .nargs_delta = 1 });
	assert_int_equal(state_of(&k, "fe_freeary")->status, HOOK_OK);
	assert_int_equal(state_of(&k, "kp_freeary")->status, HOOK_OK);
	free_kernel(&k);
	make_kernel(&k, &(struct kernel_spec){ .drop = "sem_exit_ns" });
	details = hooks_details(IPCW_MODE_FENTRY, k.st);
	assert_true(hooks_events(IPCW_MODE_FENTRY, k.st) &
		    EV(IPCW_SEM_DESTROY));
	assert_int_equal(details, ALL_DETAILS & ~DETAIL_SEM_DESTROY_CAUSE);
	assert_int_equal(hooks_details(IPCW_MODE_KPROBE, k.st),
			 ALL_DETAILS & ~DETAIL_SEM_DESTROY_CAUSE);
	free_kernel(&k);
	/* the cause is "in sem_exit_ns() or not": no system call is hooked */
	assert_null(hook_by_prog("fe_sys_semctl"));
	assert_null(hook_by_prog("ks_semctl"));
	make_kernel(&k, &(struct kernel_spec){ .drop = "sys_semctl" });
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st), ALL_DETAILS);
	free_kernel(&k);
}

/*
 * The count check's other callers: ipc(2)'s out-of-line ksys_semget()
 * gone loses its refusals alone, and says so; the ia32 system call
 * gone is a kernel without 32-bit tasks, which loses nothing.
 */
static void hooks_semget_callers(void **state)
{
	struct fake_kernel k;
	char line[1024];
	uint32_t events, details;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .drop = "ksys_semget" });
	events = hooks_events(IPCW_MODE_FENTRY, k.st);
	details = hooks_details(IPCW_MODE_FENTRY, k.st);
	assert_true(events & EV(IPCW_SEM_CREATE));
	assert_int_equal(details, ALL_DETAILS & ~DETAIL_SEM_NSEMS_IPC);
	assert_true(hook_wanted(hook_by_prog("fe_sys_semget"),
				IPCW_MODE_FENTRY, events, details));
	assert_false(hook_wanted(hook_by_prog("fx_ksys_semget"),
				 IPCW_MODE_FENTRY, events, details));
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_non_null(strstr(line, "; sem_create refusals bad_nsems, "
				     "over_semmsl through ipc(2) "
				     "(ksys_semget: not in the kernel's "
				     "BTF)"));
	free_kernel(&k);
#if defined(__x86_64__)
	make_kernel(&k, &(struct kernel_spec){ .drop = "__ia32_sys_semget" });
	assert_int_equal(state_of(&k, "fe_ia32_sys_semget")->status,
			 HOOK_NO_CALLER);
	assert_true(hook_state_fine(state_of(&k, "fx_ia32_sys_semget")));
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st), ALL_DETAILS);
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_null(strstr(line, "32-bit"));
	free_kernel(&k);
	/* in BTF but not in kallsyms: a broken hook, named */
	make_kernel(&k, &(struct kernel_spec){ .unlisted =
					       "__ia32_sys_semget" });
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st),
			 ALL_DETAILS & ~DETAIL_SEM_NSEMS_IA32);
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_non_null(strstr(line, "over_semmsl of 32-bit tasks "
				     "(__ia32_sys_semget: not in kallsyms"));
	free_kernel(&k);
#endif
}

/* A detail's function gone: the event stays, the detail is unexplained. */
static void hooks_missing_detail(void **state)
{
	struct fake_kernel k;
	char line[1024];

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .drop = "shm_more_checks" });
	assert_int_equal(state_of(&k, "fx_shm_more_checks")->status,
			 HOOK_MISSING);
	/* a kprobe needs BTF's word on its prototype too */
	assert_int_equal(state_of(&k, "kp_shm_more_checks")->status,
			 HOOK_MISSING);
	assert_int_equal(state_of(&k, "fe_newseg")->status, HOOK_OK);
	assert_true(hooks_events(IPCW_MODE_FENTRY, k.st) &
		    EV(IPCW_SHM_CREATE));
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st),
			 ALL_DETAILS & ~DETAIL_EXISTING_SMALLER);
	assert_false(hook_wanted(hook_by_prog("fx_shm_more_checks"),
				 IPCW_MODE_FENTRY,
				 hooks_events(IPCW_MODE_FENTRY, k.st),
				 hooks_details(IPCW_MODE_FENTRY, k.st)));
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_non_null(strstr(line, "; shm_create reason existing_smaller "
				     "(shm_more_checks: not in the kernel's BTF)"));
	unavailable(&k, IPCW_MODE_KPROBE, line, sizeof(line));
	assert_non_null(strstr(line, "shm_create reason existing_smaller "
				     "(shm_more_checks: not in the kernel's "
				     "BTF)"));
	free_kernel(&k);
	/* in BTF, not in kallsyms: the kprobe cannot be placed */
	make_kernel(&k, &(struct kernel_spec){ .unlisted = "shm_more_checks" });
	assert_int_equal(state_of(&k, "kp_shm_more_checks")->status,
			 HOOK_NO_SYMBOL);
	unavailable(&k, IPCW_MODE_KPROBE, line, sizeof(line));
	assert_non_null(strstr(line, "shm_create reason existing_smaller "
				     "(shm_more_checks: not in kallsyms "
				     "(inlined or renamed))"));
	free_kernel(&k);
}

/* The LSM program reads the return value after the hook's parameters. */
static void hooks_lsm_needs_exact_prototype(void **state)
{
	struct fake_kernel k;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){
		.reshaped = "bpf_lsm_shm_alloc_security", .nargs_delta = 1 });
	assert_int_equal(state_of(&k, "policy_shm_alloc")->status,
			 HOOK_PROTOTYPE);
	free_kernel(&k);
}

/* shmctl's exit clears what its entry set: one without the other is none. */
static void hooks_shmctl_pair(void **state)
{
	struct fake_kernel k;
	uint32_t events, details;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .reshaped = "sys_shmctl",
					       .nargs_delta = 1 });
	assert_int_equal(state_of(&k, "fe_sys_shmctl")->status, HOOK_OK);
	assert_int_equal(state_of(&k, "fx_sys_shmctl")->status,
			 HOOK_PROTOTYPE);
	events = hooks_events(IPCW_MODE_FENTRY, k.st);
	details = hooks_details(IPCW_MODE_FENTRY, k.st);
	assert_false(events & EV(IPCW_SHMCTL));
	assert_false(details & DETAIL_DESTROY_CAUSE);
	assert_false(hook_wanted(hook_by_prog("fe_sys_shmctl"),
				 IPCW_MODE_FENTRY, events, details));
	/* housekeeping is wanted whatever is delivered */
	assert_true(hook_wanted(hook_by_prog("tp_thread_exit"),
				IPCW_MODE_FENTRY, events, details));
	free_kernel(&k);
}

/* One more parameter: fine where the program reads the first ones. */
static void hooks_fexit_needs_exact_prototype(void **state)
{
	struct fake_kernel k;
	char line[1024];
	uint32_t events;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .reshaped = "do_shmat",
					       .nargs_delta = 1 });
	assert_int_equal(state_of(&k, "fe_do_shmat")->status, HOOK_OK);
	assert_int_equal(state_of(&k, "kp_do_shmat")->status, HOOK_OK);
	assert_int_equal(state_of(&k, "fx_do_shmat")->status, HOOK_PROTOTYPE);
	assert_int_equal(state_of(&k, "fx_do_shmat")->nargs, 6);
	events = hooks_events(IPCW_MODE_FENTRY, k.st);
	assert_false(events & EV(IPCW_SHMAT));
	assert_true(events & EV(IPCW_SHM_CREATE));
	/* the entry half is not attached without its exit */
	assert_false(hook_wanted(hook_by_prog("fe_do_shmat"), IPCW_MODE_FENTRY,
				 events, hooks_details(IPCW_MODE_FENTRY, k.st)));
	unavailable(&k, IPCW_MODE_FENTRY, line, sizeof(line));
	assert_non_null(strstr(line, "shmat (do_shmat: another prototype "
				     "(6 parameters))"));
	free_kernel(&k);
}

/* One parameter fewer than a program reads: unusable for every kind. */
static void hooks_too_few_parameters(void **state)
{
	struct fake_kernel k;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .reshaped = "newseg",
					       .nargs_delta = -1 });
	assert_int_equal(state_of(&k, "fe_newseg")->status, HOOK_PROTOTYPE);
	assert_int_equal(state_of(&k, "kp_newseg")->status, HOOK_PROTOTYPE);
	assert_int_equal(state_of(&k, "policy_newseg_enter")->status,
			 HOOK_PROTOTYPE);
	assert_false(hooks_events(IPCW_MODE_FENTRY, k.st) &
		     EV(IPCW_SHM_CREATE));
	assert_false(hooks_events(IPCW_MODE_KPROBE, k.st) &
		     EV(IPCW_SHM_CREATE));
	assert_true(hooks_events(IPCW_MODE_TRACEPOINT, k.st) &
		    EV(IPCW_SHM_CREATE));
	free_kernel(&k);
}

/*
 * Another version of the series: v1's shmat event had 8 parameters, in
 * another order. A tracepoint is used only with its exact prototype,
 * and auto mode takes the tracepoints only when all of them are as
 * ipcwatch knows them.
 */
static void hooks_other_series_version(void **state)
{
	struct fake_kernel k;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .reshaped = "shmat",
					       .nargs_delta = 3 });
	assert_int_equal(state_of(&k, "tp_shmat")->status, HOOK_PROTOTYPE);
	assert_int_equal(state_of(&k, "tp_shm_create")->status, HOOK_OK);
	assert_false(hooks_have_tracepoints(k.st));
	assert_false(hooks_events(IPCW_MODE_TRACEPOINT, k.st) &
		     EV(IPCW_SHMAT));
	free_kernel(&k);
}

/* In BTF but not in kallsyms: inlined, or only a .isra copy exists. */
static void hooks_inlined_function(void **state)
{
	struct fake_kernel k;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .unlisted = "exit_shm" });
	assert_int_equal(state_of(&k, "fe_exit_shm")->status, HOOK_NO_SYMBOL);
	assert_int_equal(state_of(&k, "kp_exit_shm")->status, HOOK_NO_SYMBOL);
	assert_true(hooks_events(IPCW_MODE_FENTRY, k.st) &
		    EV(IPCW_SHM_DESTROY));
	assert_int_equal(hooks_details(IPCW_MODE_FENTRY, k.st),
			 ALL_DETAILS & ~DETAIL_DESTROY_CAUSE);
	free_kernel(&k);
	/* a renamed copy does not stand in for the function */
	make_kernel(&k, &(struct kernel_spec){ .unlisted = "newseg" });
	assert_int_equal(state_of(&k, "fe_newseg")->status, HOOK_NO_SYMBOL);
	free_kernel(&k);
}

static void hooks_stock_kernel_has_no_tracepoints(void **state)
{
	struct fake_kernel k;
	char line[1024];

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ .no_tracepoints = true });
	assert_false(hooks_have_tracepoints(k.st));
	assert_int_equal(state_of(&k, "tp_shm_create")->status, HOOK_MISSING);
	assert_int_equal(state_of(&k, "tp_thread_exit")->status, HOOK_OK);
	/* only shmctl, from the system call's fexit, which every kernel has */
	assert_int_equal(hooks_events(IPCW_MODE_TRACEPOINT, k.st),
			 EV(IPCW_SHMCTL));
	assert_int_equal(hooks_events(IPCW_MODE_FENTRY, k.st),
			 IPCW_ALL_EVENTS & ~TP_ONLY);
	unavailable(&k, IPCW_MODE_TRACEPOINT, line, sizeof(line));
	assert_non_null(strstr(line, "shm_create (shm_create: not in the "
				     "kernel's BTF)"));
	free_kernel(&k);
}

/* Without BTF only kallsyms can vouch for a kprobe. */
static void hooks_kprobes_without_btf(void **state)
{
	struct fake_kernel k;
	struct hook_state st[128];
	size_t i;

	(void)state;
	make_kernel(&k, &(struct kernel_spec){ 0 });
	hooks_probe(NULL, k.kallsyms, st);
	for (i = 0; i < nhooks; i++) {
		bool kprobe = hooks[i].kind == HOOK_KPROBE ||
			      hooks[i].kind == HOOK_KRETPROBE;

		if (kprobe)
			assert_int_equal(st[i].status, HOOK_OK);
		else
			assert_int_equal(st[i].status, HOOK_MISSING);
	}
	/* nor BTF nor kallsyms: nothing can be vouched for */
	hooks_probe(NULL, NULL, st);
	for (i = 0; i < nhooks; i++)
		assert_int_not_equal(st[i].status, HOOK_OK);
	free_kernel(&k);
}

/* The section prefix of each kind, as libbpf names them. */
static bool kind_matches(enum hook_kind kind, const char *sec)
{
	static const char *const prefix[] = {
		[HOOK_TRACEPOINT] = "tp_btf",
		[HOOK_FENTRY] = "fentry",
		[HOOK_FEXIT] = "fexit",
		[HOOK_LSM] = "lsm",
		[HOOK_KPROBE] = "kprobe",
		[HOOK_KRETPROBE] = "kretprobe",
	};
	size_t n = strlen(prefix[kind]);

	if ((kind == HOOK_KPROBE && !strncmp(sec, "ksyscall", 8)) ||
	    (kind == HOOK_KRETPROBE && !strncmp(sec, "kretsyscall", 11)))
		return true;
	return !strncmp(sec, prefix[kind], n) &&
	       (sec[n] == '\0' || sec[n] == '/');
}

static size_t check_object(const char *path, bool *seen)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	size_t n = 0;

	obj = bpf_object__open_file(path, NULL);
	if (!obj)
		fail_msg("cannot open %s", path);
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		const char *sec = bpf_program__section_name(prog);
		const struct hook *h = hook_by_prog(name);
		const char *slash = strchr(sec, '/');

		if (!h)
			fail_msg("%s: program %s has no row in user/hooks.c",
				 path, name);
		if (!kind_matches(h->kind, sec))
			fail_msg("%s: %s is %s, the table says %s", path, name,
				 sec, hook_kind_name(h->kind));
		/* a section that names its target names the row's;
		 * ksyscall/shmctl is the row's sys_shmctl */
		if (slash && strcmp(slash + 1, h->target + (h->syscall ? 4 : 0)))
			fail_msg("%s: %s attaches to %s, the table says %s",
				 path, name, slash + 1, h->target);
		seen[h - hooks] = true;
		n++;
	}
	bpf_object__close(obj);
	return n;
}

/*
 * A call's end is attached before its beginning and detached after it:
 * every exit (and tracepoint) ranks below every entry of its mode, and
 * the sleep's fentry, which opens the record the others close, last.
 */
static void hooks_attach_order(void **state)
{
	const struct hook *sleep = hook_by_prog("fe_sem_sleep");
	size_t i;

	(void)state;
	assert_non_null(sleep);
	assert_int_equal(hook_attach_rank(sleep), HOOK_RANK_MAX);
	for (i = 0; i < nhooks; i++) {
		const struct hook *h = &hooks[i];
		int rank = hook_attach_rank(h);

		assert_in_range(rank, 0, HOOK_RANK_MAX);
		if (h->kind == HOOK_FEXIT || h->kind == HOOK_KRETPROBE ||
		    h->kind == HOOK_TRACEPOINT)
			assert_int_equal(rank, 0);
		if (h != sleep && h->set == sleep->set)
			assert_true(rank < hook_attach_rank(sleep));
	}
}

static void hooks_match_the_bpf_objects(void **state)
{
	bool seen[128] = { 0 };
	size_t i, n;

	(void)state;
	n = check_object(BPF_OBJS "/ipcwatch.bpf.o", seen);
	n += check_object(BPF_OBJS "/policy.bpf.o", seen);
	assert_int_equal(n, nhooks);
	for (i = 0; i < nhooks; i++)
		if (!seen[i])
			fail_msg("row %s has no BPF program", hooks[i].prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hooks_complete_kernel),
		cmocka_unit_test(hooks_missing_detail),
		cmocka_unit_test(hooks_sem_create_details),
		cmocka_unit_test(hooks_sem_destroy),
		cmocka_unit_test(hooks_semget_callers),
		cmocka_unit_test(hooks_fexit_needs_exact_prototype),
		cmocka_unit_test(hooks_too_few_parameters),
		cmocka_unit_test(hooks_lsm_needs_exact_prototype),
		cmocka_unit_test(hooks_shmctl_pair),
		cmocka_unit_test(hooks_inlined_function),
		cmocka_unit_test(hooks_stock_kernel_has_no_tracepoints),
		cmocka_unit_test(hooks_other_series_version),
		cmocka_unit_test(hooks_kprobes_without_btf),
		cmocka_unit_test(hooks_attach_order),
		cmocka_unit_test(hooks_match_the_bpf_objects),
	};

	/* libbpf's warnings would interleave with the TAP output */
	libbpf_set_print(NULL);
	return cmocka_run_group_tests_name("hooks", tests, NULL, NULL);
}
