// SPDX-License-Identifier: GPL-2.0
#include "hooks.h"

#include "event.h"
#include "json_writer.h"

#include <bpf/btf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EV(t) (1u << (t))
#define SEM_EVENTS (EV(IPCW_SEM_BLOCK) | EV(IPCW_SEM_WAKE))

/*
 * nargs is the target's parameter count as the program reads it. A
 * target with more is fine for fentry, tracepoint and kprobe programs
 * (they read the first nargs), never for fexit and LSM ones: the return
 * value comes after all of them, so on a kernel whose function has one
 * more parameter (hugetlb_file_setup() on 5.15) the program would take
 * a parameter for the return value.
 */
const struct hook hooks[] = {
	/* tracepoint mode: the kernel-patches/ events, one program each */
	{ "tp_shm_create", HOOK_TRACEPOINT, "shm_create", false, 11,
	  HOOKS_TRACEPOINT, EV(IPCW_SHM_CREATE), 0, false },
	{ "tp_shmat", HOOK_TRACEPOINT, "shmat", false, 5,
	  HOOKS_TRACEPOINT, EV(IPCW_SHMAT), 0, false },
	{ "tp_shm_attach", HOOK_TRACEPOINT, "shm_attach", false, 3,
	  HOOKS_TRACEPOINT, EV(IPCW_SHM_ATTACH), 0, false },
	{ "tp_shm_detach", HOOK_TRACEPOINT, "shm_detach", false, 3,
	  HOOKS_TRACEPOINT, EV(IPCW_SHM_DETACH), 0, false },
	{ "tp_shm_destroy", HOOK_TRACEPOINT, "shm_destroy", false, 6,
	  HOOKS_TRACEPOINT, EV(IPCW_SHM_DESTROY), 0, false },
	{ "tp_shm_orphan", HOOK_TRACEPOINT, "shm_orphan", false, 4,
	  HOOKS_TRACEPOINT, EV(IPCW_SHM_ORPHAN), 0, false },
	/* the series leaves shmctl() to the system call: its fexit */
	{ "tx_sys_shmctl", HOOK_FEXIT, "sys_shmctl", true, 1,
	  HOOKS_TRACEPOINT, EV(IPCW_SHMCTL), 0, false },
	{ "tp_sem_block", HOOK_TRACEPOINT, "sem_block", false, 6,
	  HOOKS_TRACEPOINT, EV(IPCW_SEM_BLOCK), 0, false },
	{ "tp_sem_wake", HOOK_TRACEPOINT, "sem_wake", false, 4,
	  HOOKS_TRACEPOINT, EV(IPCW_SEM_WAKE), 0, false },
	{ "tp_sem_create", HOOK_TRACEPOINT, "sem_create", false, 11,
	  HOOKS_TRACEPOINT, EV(IPCW_SEM_CREATE), 0, false },
	{ "tp_sem_destroy", HOOK_TRACEPOINT, "sem_destroy", false, 7,
	  HOOKS_TRACEPOINT, EV(IPCW_SEM_DESTROY), 0, false },
	{ "tp_sem_undo", HOOK_TRACEPOINT, "sem_undo", false, 6,
	  HOOKS_TRACEPOINT, EV(IPCW_SEM_UNDO), 0, false },

	/* fentry mode: the functions behind the same events */
	{ "fe_newseg", HOOK_FENTRY, "newseg", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SHM_CREATE), 0, false },
	{ "fx_newseg", HOOK_FEXIT, "newseg", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SHM_CREATE), 0, false },
	{ "fx_security_shm_alloc", HOOK_FEXIT, "security_shm_alloc", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_CREATE_STAGE, false },
	{ "fx_shmem_file_setup", HOOK_FEXIT, "shmem_kernel_file_setup", false,
	  3, HOOKS_FENTRY, 0, DETAIL_CREATE_STAGE, false },
	{ "fx_hugetlb_file_setup", HOOK_FEXIT, "hugetlb_file_setup", false, 5,
	  HOOKS_FENTRY, 0, DETAIL_CREATE_HUGETLB, false },
	{ "fx_shm_more_checks", HOOK_FEXIT, "shm_more_checks", false, 2,
	  HOOKS_FENTRY, 0, DETAIL_EXISTING_SMALLER, false },
	{ "fe_do_shmat", HOOK_FENTRY, "do_shmat", false, 5,
	  HOOKS_FENTRY, EV(IPCW_SHMAT), 0, false },
	/* the segment do_shmat() found: its LSM hook, which no other
	 * IPC lookup passes (ipc_obtain_object_check() is every one's) */
	{ "fe_security_shm_shmat", HOOK_FENTRY, "security_shm_shmat", false,
	  3, HOOKS_FENTRY, 0, DETAIL_SHMAT_SIZE, false },
	{ "fx_do_shmat", HOOK_FEXIT, "do_shmat", false, 5,
	  HOOKS_FENTRY, EV(IPCW_SHMAT), 0, false },
	{ "fe_sys_shmctl", HOOK_FENTRY, "sys_shmctl", true, 1,
	  HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	/* the exit clears the RMID context the entry set: both or none */
	{ "fx_sys_shmctl", HOOK_FEXIT, "sys_shmctl", true, 1,
	  HOOKS_FENTRY, EV(IPCW_SHMCTL), DETAIL_DESTROY_CAUSE, false },
	{ "fe_exit_shm", HOOK_FENTRY, "exit_shm", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fx_exit_shm", HOOK_FEXIT, "exit_shm", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fe_shm_destroy_orphaned", HOOK_FENTRY, "shm_destroy_orphaned", false,
	  1, HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fx_shm_destroy_orphaned", HOOK_FEXIT, "shm_destroy_orphaned", false,
	  1, HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fe_shm_exit_ns", HOOK_FENTRY, "shm_exit_ns", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fx_shm_exit_ns", HOOK_FEXIT, "shm_exit_ns", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_DESTROY_CAUSE, false },
	{ "fe_shm_destroy", HOOK_FENTRY, "shm_destroy", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SHM_DESTROY), 0, false },
	/*
	 * semop() where it sleeps, not on its path: the sleep (filtered by
	 * the system call number), the waker's store of the result, the
	 * signal that ends a sleep without one
	 */
	{ "fe_sem_sleep", HOOK_FENTRY, "schedule_hrtimeout_range", false, 3,
	  HOOKS_FENTRY, SEM_EVENTS, 0, true },
	{ "fx_sem_sleep", HOOK_FEXIT, "schedule_hrtimeout_range", false, 3,
	  HOOKS_FENTRY, SEM_EVENTS, 0, false },
	{ "fe_sem_waker", HOOK_FENTRY, "wake_q_add_safe", false, 2,
	  HOOKS_FENTRY, SEM_EVENTS, 0, false },
	{ "tp_sem_signal", HOOK_TRACEPOINT, "signal_deliver", false, 3,
	  HOOKS_FENTRY, SEM_EVENTS, 0, false },
	/* the count check of semget(), inlined into the system call */
	{ "fe_sys_semget", HOOK_FENTRY, "sys_semget", true, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS, false },
	{ "fx_sys_semget", HOOK_FEXIT, "sys_semget", true, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS, false },
	/* ipc(2) and compat ipc(2) call it out of line */
	{ "fe_ksys_semget", HOOK_FENTRY, "ksys_semget", false, 3,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS_IPC, false },
	{ "fx_ksys_semget", HOOK_FEXIT, "ksys_semget", false, 3,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS_IPC, false },
#if defined(__x86_64__)
	/* 32-bit tasks; a kernel without IA32_EMULATION has none */
	{ "fe_ia32_sys_semget", HOOK_FENTRY, "__ia32_sys_semget", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS_IA32, false },
	{ "fx_ia32_sys_semget", HOOK_FEXIT, "__ia32_sys_semget", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_NSEMS_IA32, false },
#endif
	{ "fe_newary", HOOK_FENTRY, "newary", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SEM_CREATE), 0, false },
	{ "fx_newary", HOOK_FEXIT, "newary", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SEM_CREATE), 0, false },
	{ "fx_security_sem_alloc", HOOK_FEXIT, "security_sem_alloc", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_STAGE, false },
	{ "fx_sem_more_checks", HOOK_FEXIT, "sem_more_checks", false, 2,
	  HOOKS_FENTRY, 0, DETAIL_EXISTING_FEWER, false },
	/* freeary() outside sem_exit_ns() is IPC_RMID, whichever syscall */
	{ "fe_sem_exit_ns", HOOK_FENTRY, "sem_exit_ns", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_DESTROY_CAUSE, false },
	{ "fx_sem_exit_ns", HOOK_FEXIT, "sem_exit_ns", false, 1,
	  HOOKS_FENTRY, 0, DETAIL_SEM_DESTROY_CAUSE, false },
	/* freeary() on the patched kernel has a third parameter, the cause */
	{ "fe_freeary", HOOK_FENTRY, "freeary", false, 2,
	  HOOKS_FENTRY, EV(IPCW_SEM_DESTROY), 0, false },

	/* kprobe mode: the same functions, for kernels without trampolines */
	{ "kp_newseg", HOOK_KPROBE, "newseg", false, 2,
	  HOOKS_KPROBE, EV(IPCW_SHM_CREATE), 0, false },
	{ "kr_newseg", HOOK_KRETPROBE, "newseg", false, 0,
	  HOOKS_KPROBE, EV(IPCW_SHM_CREATE), 0, false },
	{ "kr_security_shm_alloc", HOOK_KRETPROBE, "security_shm_alloc", false,
	  0, HOOKS_KPROBE, 0, DETAIL_CREATE_STAGE, false },
	{ "kr_shmem_file_setup", HOOK_KRETPROBE, "shmem_kernel_file_setup",
	  false, 0, HOOKS_KPROBE, 0, DETAIL_CREATE_STAGE, false },
	{ "kr_hugetlb_file_setup", HOOK_KRETPROBE, "hugetlb_file_setup", false,
	  0, HOOKS_KPROBE, 0, DETAIL_CREATE_HUGETLB, false },
	{ "kp_shm_more_checks", HOOK_KPROBE, "shm_more_checks", false, 2,
	  HOOKS_KPROBE, 0, DETAIL_EXISTING_SMALLER, false },
	{ "kr_shm_more_checks", HOOK_KRETPROBE, "shm_more_checks", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_EXISTING_SMALLER, false },
	{ "kp_do_shmat", HOOK_KPROBE, "do_shmat", false, 5,
	  HOOKS_KPROBE, EV(IPCW_SHMAT), 0, false },
	{ "kr_ipc_obtain_object_check", HOOK_KRETPROBE,
	  "ipc_obtain_object_check", false, 0, HOOKS_KPROBE, 0,
	  DETAIL_SHMAT_SIZE, false },
	{ "kr_do_shmat", HOOK_KRETPROBE, "do_shmat", false, 0,
	  HOOKS_KPROBE, EV(IPCW_SHMAT), 0, false },
	/* the shmctl kprobe keeps the arguments for both uses */
	{ "ks_shmctl", HOOK_KPROBE, "sys_shmctl", true, 1,
	  HOOKS_KPROBE, EV(IPCW_SHMCTL), DETAIL_DESTROY_CAUSE, false },
	{ "kr_shmctl", HOOK_KRETPROBE, "sys_shmctl", true, 0,
	  HOOKS_KPROBE, EV(IPCW_SHMCTL), 0, false },
	{ "kp_exit_shm", HOOK_KPROBE, "exit_shm", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kr_exit_shm", HOOK_KRETPROBE, "exit_shm", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kp_shm_destroy_orphaned", HOOK_KPROBE, "shm_destroy_orphaned", false,
	  0, HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kr_shm_destroy_orphaned", HOOK_KRETPROBE, "shm_destroy_orphaned",
	  false, 0, HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kp_shm_exit_ns", HOOK_KPROBE, "shm_exit_ns", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kr_shm_exit_ns", HOOK_KRETPROBE, "shm_exit_ns", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_DESTROY_CAUSE, false },
	{ "kp_shm_destroy", HOOK_KPROBE, "shm_destroy", false, 2,
	  HOOKS_KPROBE, EV(IPCW_SHM_DESTROY), 0, false },
	{ "kp_do_semtimedop", HOOK_KPROBE, "__do_semtimedop", false, 5,
	  HOOKS_KPROBE, SEM_EVENTS, 0, false },
	{ "kp_perform_atomic_semop", HOOK_KPROBE, "perform_atomic_semop", false,
	  2, HOOKS_KPROBE, SEM_EVENTS, 0, false },
	{ "kr_perform_atomic_semop", HOOK_KRETPROBE, "perform_atomic_semop",
	  false, 0, HOOKS_KPROBE, SEM_EVENTS, 0, false },
	{ "kr_do_semtimedop", HOOK_KRETPROBE, "__do_semtimedop", false, 0,
	  HOOKS_KPROBE, SEM_EVENTS, 0, false },
	{ "ks_semget", HOOK_KPROBE, "sys_semget", true, 1,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS, false },
	{ "kr_semget", HOOK_KRETPROBE, "sys_semget", true, 0,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS, false },
	{ "kp_ksys_semget", HOOK_KPROBE, "ksys_semget", false, 3,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS_IPC, false },
	{ "kr_ksys_semget", HOOK_KRETPROBE, "ksys_semget", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS_IPC, false },
#if defined(__x86_64__)
	{ "kp_ia32_sys_semget", HOOK_KPROBE, "__ia32_sys_semget", false, 1,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS_IA32, false },
	{ "kr_ia32_sys_semget", HOOK_KRETPROBE, "__ia32_sys_semget", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_SEM_NSEMS_IA32, false },
#endif
	{ "kp_newary", HOOK_KPROBE, "newary", false, 2,
	  HOOKS_KPROBE, EV(IPCW_SEM_CREATE), 0, false },
	{ "kr_newary", HOOK_KRETPROBE, "newary", false, 0,
	  HOOKS_KPROBE, EV(IPCW_SEM_CREATE), 0, false },
	{ "kr_security_sem_alloc", HOOK_KRETPROBE, "security_sem_alloc", false,
	  0, HOOKS_KPROBE, 0, DETAIL_SEM_STAGE, false },
	{ "kp_sem_more_checks", HOOK_KPROBE, "sem_more_checks", false, 2,
	  HOOKS_KPROBE, 0, DETAIL_EXISTING_FEWER, false },
	{ "kr_sem_more_checks", HOOK_KRETPROBE, "sem_more_checks", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_EXISTING_FEWER, false },
	{ "kp_sem_exit_ns", HOOK_KPROBE, "sem_exit_ns", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_SEM_DESTROY_CAUSE, false },
	{ "kr_sem_exit_ns", HOOK_KRETPROBE, "sem_exit_ns", false, 0,
	  HOOKS_KPROBE, 0, DETAIL_SEM_DESTROY_CAUSE, false },
	{ "kp_freeary", HOOK_KPROBE, "freeary", false, 2,
	  HOOKS_KPROBE, EV(IPCW_SEM_DESTROY), 0, false },

	/* every mode: per-thread state dropped when the thread exits */
	{ "tp_thread_exit", HOOK_TRACEPOINT, "sched_process_exit", false, 1,
	  HOOKS_COMMON, 0, 0, false },

	/* enforce: every one is needed; the LSM program reads the return
	 * value after the hook's parameters, so its count must be exact */
	{ "policy_newseg_enter", HOOK_FENTRY, "newseg", false, 2,
	  HOOKS_POLICY, 0, 0, false },
	{ "policy_shm_alloc", HOOK_LSM, "shm_alloc_security", false, 1,
	  HOOKS_POLICY, 0, 0, false },
	{ "policy_newseg_exit", HOOK_FEXIT, "newseg", false, 2,
	  HOOKS_POLICY, 0, 0, false },
	{ "policy_shm_destroy", HOOK_FENTRY, "shm_destroy", false, 2,
	  HOOKS_POLICY, 0, 0, false },
	/* the IPC_RMID guard: IPC_RMID reaches no other LSM hook */
	{ "policy_sem_rmid", HOOK_LSM, "sem_semctl", false, 2,
	  HOOKS_POLICY, 0, 0, false },
	{ "policy_shm_rmid", HOOK_LSM, "shm_shmctl", false, 2,
	  HOOKS_POLICY, 0, 0, false },
};

const size_t nhooks = sizeof(hooks) / sizeof(hooks[0]);

/* The syscall wrappers' prefix of the architecture ipcwatch runs on. */
#if defined(__x86_64__)
#define SYSCALL_PREFIX "__x64_"
#elif defined(__aarch64__)
#define SYSCALL_PREFIX "__arm64_"
#elif defined(__s390x__)
#define SYSCALL_PREFIX "__s390x_"
#elif defined(__riscv)
#define SYSCALL_PREFIX "__riscv_"
#else
#define SYSCALL_PREFIX ""
#endif

const struct hook *hook_by_prog(const char *prog)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (!strcmp(hooks[i].prog, prog))
			return &hooks[i];
	return NULL;
}

/*
 * Targets only some configurations build, together with every caller
 * they serve: absent from a kernel's BTF, nothing is lost there.
 */
static bool is_optional(const struct hook *h)
{
	/* the ia32 system call, only with CONFIG_IA32_EMULATION */
	return !strcmp(h->target, "__ia32_sys_semget");
}

static bool is_kprobe(const struct hook *h)
{
	return h->kind == HOOK_KPROBE || h->kind == HOOK_KRETPROBE;
}

/* The FUNC_PROTO a BTF type id leads to, through a pointer if need be. */
static const struct btf_type *func_proto(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_ptr(t) || btf_is_func(t)))
		t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

/* The parameters of a hook's target in @btf, or -1 if it is not there. */
static int target_params(const struct btf *btf, const struct hook *h,
		      const char *name)
{
	const struct btf_type *proto;
	char buf[96];
	__s32 id;

	switch (h->kind) {
	case HOOK_TRACEPOINT:
		/* the event's probe: void (*)(void *__data, TP_PROTO) */
		snprintf(buf, sizeof(buf), "btf_trace_%s", name);
		id = btf__find_by_name_kind(btf, buf, BTF_KIND_TYPEDEF);
		proto = id > 0 ? func_proto(btf, (__u32)id) : NULL;
		return proto ? (int)btf_vlen(proto) - 1 : -1;
	case HOOK_LSM:
		snprintf(buf, sizeof(buf), "bpf_lsm_%s", name);
		name = buf;
		break;
	default:
		break;
	}
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	proto = id > 0 ? func_proto(btf, (__u32)id) : NULL;
	return proto ? (int)btf_vlen(proto) : -1;
}

/* Names of functions in kallsyms that some hook targets. */
struct symbols {
	char **names;
	size_t n;
	bool read;
};

static bool wanted_symbol(const char *name, const struct hook_state *states)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i].kind != HOOK_TRACEPOINT &&
		    !strcmp(states[i].target, name))
			return true;
	return false;
}

static void read_symbols(const char *path, const struct hook_state *states,
			 struct symbols *syms)
{
	char line[512], name[256], type;
	FILE *f = fopen(path, "r");

	memset(syms, 0, sizeof(*syms));
	if (!f)
		return;
	syms->read = true;
	while (fgets(line, sizeof(line), f)) {
		char **grown;

		/* "ffffffff81000000 T name [module]": text symbols only */
		if (sscanf(line, "%*s %c %255s", &type, name) != 2 ||
		    (type != 't' && type != 'T') || !wanted_symbol(name, states))
			continue;
		grown = realloc(syms->names, (syms->n + 1) * sizeof(*grown));
		if (!grown)
			break;
		syms->names = grown;
		syms->names[syms->n] = strdup(name);
		if (syms->names[syms->n])
			syms->n++;
	}
	fclose(f);
}

static bool has_symbol(const struct symbols *syms, const char *name)
{
	size_t i;

	if (!syms->read)
		return true;	/* cannot tell: BTF alone decides */
	for (i = 0; i < syms->n; i++)
		if (!strcmp(syms->names[i], name))
			return true;
	return false;
}

void hooks_probe(const struct btf *btf, const char *kallsyms,
		 struct hook_state *states)
{
	struct symbols syms = { 0 };
	size_t i;
	int n;

	for (i = 0; i < nhooks; i++) {
		const struct hook *h = &hooks[i];
		struct hook_state *s = &states[i];

		memset(s, 0, sizeof(*s));
		if (h->kind == HOOK_LSM)
			snprintf(s->target, sizeof(s->target), "bpf_lsm_%s",
				 h->target);
		else
			snprintf(s->target, sizeof(s->target), "%s%s",
				 h->syscall ? SYSCALL_PREFIX : "", h->target);
		n = btf ? target_params(btf, h, h->kind == HOOK_LSM ? h->target :
							     s->target) : -1;
		/*
		 * A program reads its first nargs arguments; a fexit or
		 * LSM one reads the return value after all of them, so
		 * there the count must be exact. So must an ipc event's:
		 * its prototype is its only version mark, and another
		 * version of the series may order the same count otherwise. A kprobe is checked
		 * against BTF too when there is one: a function in
		 * kallsyms that BTF lacks is one pahole dropped (two
		 * prototypes for one name), whose registers nobody knows.
		 */
		if (n < 0) {
			if (is_optional(h) && btf)
				s->status = HOOK_NO_CALLER;
			else if (!is_kprobe(h) || btf)
				s->status = HOOK_MISSING;
		} else if (h->kind == HOOK_FEXIT || h->kind == HOOK_LSM ||
			   h->kind == HOOK_TRACEPOINT ?
			   n != h->nargs : n < h->nargs) {
			s->status = HOOK_PROTOTYPE;
			s->nargs = n;
		}
	}
	if (kallsyms)
		read_symbols(kallsyms, states, &syms);
	for (i = 0; i < nhooks; i++) {
		if (states[i].status != HOOK_OK ||
		    hooks[i].kind == HOOK_TRACEPOINT)
			continue;
		/* a kprobe without BTF or kallsyms cannot be checked */
		if (is_kprobe(&hooks[i]) && !syms.read && !btf)
			states[i].status = HOOK_MISSING;
		else if (!has_symbol(&syms, states[i].target))
			states[i].status = HOOK_NO_SYMBOL;
	}
	for (i = 0; i < syms.n; i++)
		free(syms.names[i]);
	free(syms.names);
}

bool hooks_have_tracepoints(const struct hook_state *states)
{
	bool any = false;
	size_t i;

	/*
	 * the events themselves (the mode's fexit is on every kernel), all
	 * of them: a kernel with some, or others, has another version of
	 * the series, which ipcwatch does not read
	 */
	for (i = 0; i < nhooks; i++) {
		if (hooks[i].set != HOOKS_TRACEPOINT ||
		    hooks[i].kind != HOOK_TRACEPOINT)
			continue;
		if (states[i].status != HOOK_OK)
			return false;
		any = true;
	}
	return any;
}

bool hook_in_mode(const struct hook *h, enum ipcw_mode mode)
{
	switch (h->set) {
	case HOOKS_COMMON:
		return true;
	case HOOKS_TRACEPOINT:
		return mode == IPCW_MODE_TRACEPOINT;
	case HOOKS_FENTRY:
		return mode == IPCW_MODE_FENTRY;
	case HOOKS_KPROBE:
		return mode == IPCW_MODE_KPROBE;
	default:
		return false;
	}
}

bool hook_state_fine(const struct hook_state *s)
{
	return s->status == HOOK_OK || s->status == HOOK_NO_CALLER;
}

uint32_t hooks_events(enum ipcw_mode mode, const struct hook_state *states)
{
	uint32_t provided = 0, broken = 0;
	size_t i;

	for (i = 0; i < nhooks; i++) {
		if (!hook_in_mode(&hooks[i], mode))
			continue;
		provided |= hooks[i].needs;
		if (!hook_state_fine(&states[i]))
			broken |= hooks[i].needs;
	}
	return provided & ~broken;
}

uint32_t hooks_details(enum ipcw_mode mode, const struct hook_state *states)
{
	uint32_t provided = 0, broken = 0;
	size_t i;

	for (i = 0; i < nhooks; i++) {
		if (!hook_in_mode(&hooks[i], mode))
			continue;
		provided |= hooks[i].detail;
		if (!hook_state_fine(&states[i]))
			broken |= hooks[i].detail;
	}
	return provided & ~broken;
}

/* The event a detail refines. */
static uint32_t detail_event(uint32_t detail)
{
	switch (detail) {
	case DETAIL_SHMAT_SIZE:
		return EV(IPCW_SHMAT);
	case DETAIL_DESTROY_CAUSE:
		return EV(IPCW_SHM_DESTROY);
	case DETAIL_SEM_NSEMS:
	case DETAIL_SEM_NSEMS_IPC:
	case DETAIL_SEM_NSEMS_IA32:
	case DETAIL_SEM_STAGE:
	case DETAIL_EXISTING_FEWER:
		return EV(IPCW_SEM_CREATE);
	case DETAIL_SEM_DESTROY_CAUSE:
		return EV(IPCW_SEM_DESTROY);
	default:
		return EV(IPCW_SHM_CREATE);
	}
}

bool hook_wanted(const struct hook *h, enum ipcw_mode mode, uint32_t events,
		 uint32_t details)
{
	if (!hook_in_mode(h, mode))
		return false;
	if (!h->needs && !h->detail)
		return true;	/* housekeeping, serves every event */
	if (h->needs)
		return (h->needs & events) == h->needs;
	return (h->detail & details) && (detail_event(h->detail) & events);
}

uint32_t mode_never_events(enum ipcw_mode mode)
{
	uint32_t provided = 0;
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hook_in_mode(&hooks[i], mode))
			provided |= hooks[i].needs;
	return IPCW_ALL_EVENTS & ~provided;
}

const char *hook_status_text(const struct hook_state *s, char *buf,
			     size_t len)
{
	switch (s->status) {
	case HOOK_OK:
		return "ok";
	case HOOK_MISSING:
		return "not in the kernel's BTF";
	case HOOK_PROTOTYPE:
		snprintf(buf, len, "another prototype (%d parameters)",
			 s->nargs);
		return buf;
	case HOOK_NO_SYMBOL:
		return "not in kallsyms (inlined or renamed)";
	case HOOK_NO_CALLER:
		return "not built in this kernel, nor its callers";
	case HOOK_ATTACH_FAILED:
		snprintf(buf, len, "attach refused: %s", strerror(s->err));
		return buf;
	}
	return "?";
}

const char *hook_detail_text(uint32_t detail)
{
	switch (detail) {
	case DETAIL_CREATE_STAGE:
		return "shm_create reasons lsm_denied, file_setup, nomem";
	case DETAIL_CREATE_HUGETLB:
		return "shm_create reason file_setup of SHM_HUGETLB";
	case DETAIL_EXISTING_SMALLER:
		return "shm_create reason existing_smaller";
	case DETAIL_SHMAT_SIZE:
		return "shmat size and reason addr_wrap";
	case DETAIL_DESTROY_CAUSE:
		return "shm_destroy cause";
	case DETAIL_SEM_NSEMS:
		return "sem_create refusals bad_nsems, over_semmsl";
	case DETAIL_SEM_NSEMS_IPC:
		return "sem_create refusals bad_nsems, over_semmsl through "
		       "ipc(2)";
	case DETAIL_SEM_NSEMS_IA32:
		return "sem_create refusals bad_nsems, over_semmsl of 32-bit "
		       "tasks";
	case DETAIL_SEM_STAGE:
		return "sem_create reasons lsm_denied, nomem, no_ids";
	case DETAIL_EXISTING_FEWER:
		return "sem_create reason existing_fewer";
	case DETAIL_SEM_DESTROY_CAUSE:
		return "sem_destroy cause";
	}
	return "?";
}

/* The first unusable hook of @mode behind an event or a detail. */
static size_t first_broken(enum ipcw_mode mode, const struct hook_state *st,
			   uint32_t event, uint32_t detail)
{
	size_t i;

	for (i = 0; i < nhooks; i++)
		if (hook_in_mode(&hooks[i], mode) && !hook_state_fine(&st[i]) &&
		    ((event && (hooks[i].needs & event)) ||
		     (detail && (hooks[i].detail & detail))))
			return i;
	return nhooks;
}

/* Calls @fn for each event and detail @mode cannot deliver here. */
static void for_each_unavailable(enum ipcw_mode mode,
				 const struct hook_state *st,
				 void (*fn)(const char *what, const char *why,
					    const char *hook, void *ctx),
				 void *ctx)
{
	uint32_t events = hooks_events(mode, st), details, never, bit;
	char buf[96];
	size_t i;

	never = mode_never_events(mode);
	for (bit = 1; bit < IPCW_TYPE_MAX; bit++) {
		if (events & (1u << bit))
			continue;
		if (never & (1u << bit)) {
			fn(event_type_name(bit), mode == IPCW_MODE_TRACEPOINT ?
			   "not in tracepoint mode" :
			   "needs the ipc tracepoints of kernel-patches/", NULL,
			   ctx);
			continue;
		}
		i = first_broken(mode, st, 1u << bit, 0);
		if (i < nhooks)
			fn(event_type_name(bit), hook_status_text(&st[i], buf,
								sizeof(buf)),
			   st[i].target, ctx);
	}
	details = hooks_details(mode, st);
	for (bit = 1; bit <= DETAIL_LAST; bit <<= 1) {
		i = first_broken(mode, st, 0, bit);
		if ((details & bit) || i == nhooks)
			continue;
		fn(hook_detail_text(bit), hook_status_text(&st[i], buf,
							   sizeof(buf)),
		   st[i].target, ctx);
	}
}

struct line_ctx {
	char *buf;
	size_t len, used;
};

static void add_to_line(const char *what, const char *why, const char *hook,
			void *ctx)
{
	struct line_ctx *l = ctx;
	int n;

	if (l->used >= l->len)
		return;
	n = snprintf(l->buf + l->used, l->len - l->used, "%s%s (%s%s%s)",
		     l->used ? "; " : "", what, hook ? hook : "",
		     hook ? ": " : "", why);
	if (n > 0)
		l->used += (size_t)n;
}

bool hooks_unavailable_line(enum ipcw_mode mode, const struct hook_state *st,
			    char *buf, size_t len)
{
	struct line_ctx l = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	for_each_unavailable(mode, st, add_to_line, &l);
	return l.used > 0;
}

static void add_to_json(const char *what, const char *why, const char *hook,
			void *ctx)
{
	struct json_writer *jw = ctx;

	jw_start_object(jw);
	jw_kv_string(jw, "what", what);
	if (hook)
		jw_kv_string(jw, "hook", hook);
	jw_kv_string(jw, "why", why);
	jw_end_object(jw);
}

void hooks_unavailable_json(struct json_writer *jw, enum ipcw_mode mode,
			    const struct hook_state *st)
{
	jw_start_array(jw);
	for_each_unavailable(mode, st, add_to_json, jw);
	jw_end_array(jw);
}

const char *hook_kind_name(enum hook_kind kind)
{
	static const char *const names[] = { "tracepoint", "fentry", "fexit",
					     "lsm", "kprobe", "kretprobe" };

	return kind <= HOOK_KRETPROBE ? names[kind] : "?";
}

int hook_attach_rank(const struct hook *h)
{
	if (h->opens)
		return 2;
	return h->kind == HOOK_FENTRY || h->kind == HOOK_KPROBE ? 1 : 0;
}
