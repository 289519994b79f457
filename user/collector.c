// SPDX-License-Identifier: GPL-2.0
#include "collector.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "event.h"
#include "hooks.h"
#include "ipcwatch.skel.h"

#define DEFAULT_BUFFER_BYTES (1024 * 1024)

/* The kernel's "operation not supported" (no BPF trampolines), not in libc */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

struct collector {
	struct ipcwatch_bpf *skel;
	struct ring_buffer *rb;
	enum ipcw_mode mode;
	struct hook_state *states;	/* by hooks[] index */
	bool fell_back;			/* auto: fentry refused, kprobes used */
	struct bpf_link **links;	/* by hooks[] index */
	uint32_t events, details;
	int cgroup_fd;
	collector_event_fn fn;
	void *ctx;
	uint64_t malformed;
	uint64_t unsent;		/* held at stop, never decided */
};

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (!verbose_libbpf)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, args);
}

/* The mode to use on this kernel, or -errno with the reason in @err. */
static int choose_mode(enum ipcw_mode want, const struct hook_state *st,
		       char *err, size_t errlen)
{
	bool tp = hooks_have_tracepoints(st);
	bool fentry = hooks_events(IPCW_MODE_FENTRY, st) != 0;
	bool kprobe = hooks_events(IPCW_MODE_KPROBE, st) != 0;
	char why[96];
	size_t i;

	switch (want) {
	case IPCW_MODE_TRACEPOINT:
		if (tp)
			return IPCW_MODE_TRACEPOINT;
		snprintf(err, errlen, "--mode=tracepoint: this kernel lacks the "
			 "ipc tracepoints of kernel-patches/ (or has another "
			 "version of them); try --mode=fentry");
		return -EOPNOTSUPP;
	case IPCW_MODE_FENTRY:
		if (fentry)
			return IPCW_MODE_FENTRY;
		break;
	case IPCW_MODE_KPROBE:
		if (kprobe)
			return IPCW_MODE_KPROBE;
		break;
	default:
		if (tp)
			return IPCW_MODE_TRACEPOINT;
		if (fentry)
			return IPCW_MODE_FENTRY;
		if (kprobe)
			return IPCW_MODE_KPROBE;
		break;
	}
	for (i = 0; i < nhooks; i++)
		if (hooks[i].set == (want == IPCW_MODE_KPROBE ? HOOKS_KPROBE :
				     HOOKS_FENTRY) &&
		    !hook_state_fine(&st[i]))
			break;
	snprintf(err, errlen, "%s%s (%s: %s); ipcwatch probe lists every hook",
		 want == IPCW_MODE_AUTO ? "" : want == IPCW_MODE_FENTRY ?
		 "--mode=fentry: " : "--mode=kprobe: ",
		 want == IPCW_MODE_AUTO ?
		 "this kernel has neither the ipc tracepoints nor a hook for "
		 "any event" : "this kernel has no hook for any event of the mode",
		 i < nhooks ? st[i].target : "?",
		 i < nhooks ? hook_status_text(&st[i], why, sizeof(why)) : "?");
	return -EOPNOTSUPP;
}

static int handle_record(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	struct ipcw_event e;

	if (event_decode(data, size, &e)) {
		c->malformed++;
		return 0;
	}
	/* emitted between the attach and settle() by half of a pair */
	if (!(c->events & (1u << e.type)))
		return 0;
	return c->fn(&e, c->ctx);
}

static const char *load_error(int err)
{
	/* EACCES is the verifier's refusal, EPERM a missing right */
	switch (-err) {
	case EPERM:
		return "BPF not permitted: run as root (CAP_BPF, CAP_PERFMON "
		       "and CAP_SYS_RESOURCE)";
	case ENOTSUPP:
		return "this kernel cannot attach BPF trampolines (fentry, "
		       "fexit, LSM); --mode=kprobe works without them";
	default:
		return NULL;
	}
}

/* Whether every refused attach of the mode was for want of trampolines. */
static bool no_trampolines(const struct collector *c)
{
	size_t i;
	bool any = false;

	for (i = 0; i < nhooks; i++) {
		if (!hook_in_mode(&hooks[i], c->mode) ||
		    c->states[i].status != HOOK_ATTACH_FAILED)
			continue;
		if (c->states[i].err != ENOTSUPP)
			return false;
		any = true;
	}
	return any;
}

/* Attach the programs loaded, by rank; a refused one marks its hook
 * unusable. */
static void attach_loaded(struct collector *c)
{
	struct bpf_program *prog;
	int rank;

	for (rank = 0; rank <= HOOK_RANK_MAX; rank++)
		bpf_object__for_each_program(prog, c->skel->obj) {
			const struct hook *h =
				hook_by_prog(bpf_program__name(prog));
			size_t i;

			if (!h || !bpf_program__autoload(prog) ||
			    hook_attach_rank(h) != rank)
				continue;
			i = (size_t)(h - hooks);
			c->links[i] = bpf_program__attach(prog);
			if (!c->links[i]) {
				c->states[i].status = HOOK_ATTACH_FAILED;
				c->states[i].err = errno;
			}
		}
}

/* Detach every program, in the reverse of the attach order. */
static void detach_all(struct collector *c)
{
	size_t i;
	int rank;

	for (rank = HOOK_RANK_MAX; rank >= 0 && c->links; rank--)
		for (i = 0; i < nhooks; i++)
			if (c->links[i] && hook_attach_rank(&hooks[i]) == rank) {
				bpf_link__destroy(c->links[i]);
				c->links[i] = NULL;
			}
}

/*
 * After the attach: what is delivered now, and the links of the hooks
 * that no longer serve anything (the other half of a pair was refused)
 * are dropped, so no half-traced event is ever reported.
 */
static void settle(struct collector *c)
{
	size_t i;

	c->events = hooks_events(c->mode, c->states);
	c->details = hooks_details(c->mode, c->states);
	for (i = 0; i < nhooks; i++)
		if (c->links[i] &&
		    !hook_wanted(&hooks[i], c->mode, c->events, c->details)) {
			bpf_link__destroy(c->links[i]);
			c->links[i] = NULL;
		}
	c->skel->bss->details = c->details;
}

/*
 * Open, load and attach the programs of c->mode: 0, -ENOTSUPP when the
 * kernel refused every attach for want of BPF trampolines, or -1 with
 * the reason in @err.
 */
static int open_mode(struct collector *c, const struct collector_opts *opts,
		     size_t bytes, char *err, size_t errlen)
{
	struct bpf_program *prog;
	const char *why;
	int ret, key = 0;
	size_t i;

	c->events = hooks_events(c->mode, c->states);
	c->details = hooks_details(c->mode, c->states);
	c->skel = ipcwatch_bpf__open();
	if (!c->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s",
			 strerror(errno));
		return -1;
	}
	c->skel->rodata->targ_tgid = opts->pid;
	c->skel->rodata->filter_uid = opts->filter_uid;
	c->skel->rodata->targ_uid = opts->uid;
	c->skel->rodata->targ_ipcns = opts->ipcns;
	c->skel->rodata->filter_cgroup = opts->cgroup != NULL;
	c->skel->rodata->failed_only = opts->failed_only;
	c->skel->rodata->page_shift = (uint32_t)__builtin_ctzl(
		(unsigned long)sysconf(_SC_PAGESIZE));
	bpf_map__set_max_entries(c->skel->maps.events, bytes);

	/* Only what this kernel has, and what serves an event of the mode. */
	bpf_object__for_each_program(prog, c->skel->obj) {
		const struct hook *h = hook_by_prog(bpf_program__name(prog));
		const struct hook_state *st = h ? &c->states[h - hooks] : NULL;
		bool load = h && st->status == HOOK_OK &&
			    hook_wanted(h, c->mode, c->events, c->details);

		bpf_program__set_autoload(prog, load);
		if (load && h->syscall && h->kind != HOOK_KPROBE &&
		    h->kind != HOOK_KRETPROBE &&
		    bpf_program__set_attach_target(prog, 0, st->target)) {
			snprintf(err, errlen, "program %s: target %s: %s",
				 h->prog, st->target, strerror(errno));
			return -1;
		}
	}

	ret = ipcwatch_bpf__load(c->skel);
	if (ret) {
		why = load_error(ret);
		if (why)
			snprintf(err, errlen, "%s", why);
		else
			snprintf(err, errlen,
				 "cannot load the BPF programs (%s mode): %s "
				 "(-v shows the verifier log)",
				 mode_name(c->mode), strerror(-ret));
		return -1;
	}
	if (c->cgroup_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.cgroup_filter),
				&key, &c->cgroup_fd, BPF_ANY)) {
		snprintf(err, errlen, "cgroup %s: %s", opts->cgroup,
			 strerror(errno));
		return -1;
	}
	/* until settled, no event claims a detail it may not have */
	c->skel->bss->details = 0;
	attach_loaded(c);
	settle(c);
	if (c->events)
		return 0;
	if (no_trampolines(c))
		return -ENOTSUPP;
	for (i = 0; i < nhooks; i++)
		if (c->states[i].status == HOOK_ATTACH_FAILED)
			break;
	why = i < nhooks ? load_error(-c->states[i].err) : NULL;
	snprintf(err, errlen, "cannot attach the BPF programs: %s%s%s",
		 why ? why : "no event could be attached",
		 !why && i < nhooks ? ": " : "",
		 !why && i < nhooks ? strerror(c->states[i].err) : "");
	return -1;
}

/* Undo open_mode(), to try another mode. */
static void close_mode(struct collector *c)
{
	detach_all(c);
	ipcwatch_bpf__destroy(c->skel);
	c->skel = NULL;
}

struct collector *collector_open(const struct collector_opts *opts,
				 collector_event_fn fn, void *ctx,
				 char *err, size_t errlen)
{
	struct collector *c = calloc(1, sizeof(*c));
	struct btf *btf = NULL;
	const char *why;
	int mode, ret;
	size_t bytes;

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->cgroup_fd = -1;
	c->fn = fn;
	c->ctx = ctx;
	verbose_libbpf = opts->verbose;
	libbpf_set_print(libbpf_print);
	c->states = calloc(nhooks, sizeof(*c->states));
	c->links = calloc(nhooks, sizeof(*c->links));
	if (!c->states || !c->links) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen,
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "ipcwatch needs CONFIG_DEBUG_INFO_BTF=y");
		goto fail;
	}
	hooks_probe(btf, "/proc/kallsyms", c->states);
	btf__free(btf);
	mode = choose_mode(opts->mode, c->states, err, errlen);
	if (mode < 0)
		goto fail;
	c->mode = mode;

	bytes = opts->buffer_bytes ? opts->buffer_bytes : DEFAULT_BUFFER_BYTES;
	if (bytes < (size_t)getpagesize() || (bytes & (bytes - 1))) {
		snprintf(err, errlen,
			 "buffer size %zu: must be a power of 2, at least %d",
			 bytes, getpagesize());
		goto fail;
	}
	if (opts->cgroup) {
		c->cgroup_fd = open(opts->cgroup, O_RDONLY | O_DIRECTORY);
		if (c->cgroup_fd < 0) {
			snprintf(err, errlen, "cannot open cgroup %s: %s",
				 opts->cgroup, strerror(errno));
			goto fail;
		}
	}

	ret = open_mode(c, opts, bytes, err, errlen);
	/* auto: a kernel without trampolines still has kprobes */
	if (ret == -ENOTSUPP && opts->mode == IPCW_MODE_AUTO &&
	    hooks_events(IPCW_MODE_KPROBE, c->states)) {
		close_mode(c);
		c->mode = IPCW_MODE_KPROBE;
		c->fell_back = true;
		ret = open_mode(c, opts, bytes, err, errlen);
	}
	if (ret == -ENOTSUPP) {
		why = load_error(ret);
		snprintf(err, errlen, "cannot attach the BPF programs: %s", why);
	}
	if (ret)
		goto fail;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.events),
				 handle_record, c, NULL);
	if (!c->rb) {
		snprintf(err, errlen, "cannot open the ring buffer: %s",
			 strerror(errno));
		goto fail;
	}
	return c;
fail:
	collector_close(c);
	return NULL;
}

int collector_poll(struct collector *c, int timeout_ms)
{
	int ret = ring_buffer__poll(c->rb, timeout_ms);

	return ret == -EINTR ? 0 : ret;
}

int collector_fd(struct collector *c)
{
	return ring_buffer__epoll_fd(c->rb);
}

uint64_t percpu_map_sum(int map_fd, uint32_t key)
{
	int ncpus = libbpf_num_possible_cpus(), i;
	uint64_t *values, total = 0;

	if (ncpus <= 0)
		return 0;
	values = calloc((size_t)ncpus, sizeof(*values));
	if (!values)
		return 0;
	if (!bpf_map_lookup_elem(map_fd, &key, values))
		for (i = 0; i < ncpus; i++)
			total += values[i];
	free(values);
	return total;
}

int collector_probe_trampolines(const struct hook_state *st, bool verbose)
{
	struct ipcwatch_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link;
	const struct hook *pick = NULL;
	size_t i;
	int ret;

	for (i = 0; i < nhooks && !pick; i++)
		if (hooks[i].set == HOOKS_FENTRY &&
		    hooks[i].kind == HOOK_FENTRY && !hooks[i].syscall &&
		    st[i].status == HOOK_OK)
			pick = &hooks[i];
	if (!pick)
		return -ENOENT;
	verbose_libbpf = verbose;
	libbpf_set_print(libbpf_print);
	skel = ipcwatch_bpf__open();
	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog,
			!strcmp(bpf_program__name(prog), pick->prog));
	ret = ipcwatch_bpf__load(skel);
	if (!ret) {
		prog = bpf_object__find_program_by_name(skel->obj, pick->prog);
		link = prog ? bpf_program__attach(prog) : NULL;
		ret = link ? 1 : errno == ENOTSUPP ? 0 : -errno;
		bpf_link__destroy(link);
	}
	ipcwatch_bpf__destroy(skel);
	return ret;
}

/* Where held_wake.decided is, from the BPF object's BTF; -1 if not. */
static long held_decided_offset(const struct bpf_object *obj)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf ? btf__find_by_name_kind(btf, "held_wake", BTF_KIND_STRUCT)
		 : -1;
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "decided"))
			return btf_member_bit_offset(t, i) / 8;
	return -1;
}

/* Held records nobody decided (all of them if that cannot be read). */
static uint64_t undecided_held(struct collector *c)
{
	const struct bpf_map *map = c->skel->maps.held_wakes;
	size_t vsize = bpf_map__value_size(map);
	long off = held_decided_offset(c->skel->obj);
	int fd = bpf_map__fd(map);
	uint32_t key, next, *prev = NULL;
	unsigned char *val = malloc(vsize);
	uint64_t n = 0, decided;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		decided = 0;
		if (val && off >= 0 && (size_t)off + sizeof(decided) <= vsize &&
		    !bpf_map_lookup_elem(fd, &key, val))
			memcpy(&decided, val + off, sizeof(decided));
		n += !decided;
	}
	free(val);
	return n;
}

void collector_stop(struct collector *c)
{
	struct timespec step = { .tv_nsec = 2000000 };
	int waited;

	/* a program still running on another CPU may insert one more */
	detach_all(c);
	/* a timeout's -EAGAIN held past its re-check: the timers, which
	 * outlive the links, decide it within a few of their 1 ms periods */
	for (waited = 0; waited < 50; waited += 2) {
		nanosleep(&step, NULL);
		if (waited >= 4 && !undecided_held(c))
			break;
	}
	c->unsent = undecided_held(c);
}

uint64_t collector_lost(struct collector *c)
{
	return percpu_map_sum(bpf_map__fd(c->skel->maps.lost_events), 0) +
	       c->unsent;
}

uint64_t collector_malformed(struct collector *c)
{
	return c->malformed;
}

enum ipcw_mode collector_mode(const struct collector *c)
{
	return c->mode;
}

bool collector_fell_back(const struct collector *c)
{
	return c->fell_back;
}

uint32_t collector_events(const struct collector *c)
{
	return c->events;
}

const struct hook_state *collector_hooks(const struct collector *c)
{
	return c->states;
}

void collector_close(struct collector *c)
{
	if (!c)
		return;
	detach_all(c);
	ring_buffer__free(c->rb);
	free(c->links);
	free(c->states);
	ipcwatch_bpf__destroy(c->skel);
	if (c->cgroup_fd >= 0)
		close(c->cgroup_fd);
	free(c);
}
