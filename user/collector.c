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
#include <unistd.h>

#include "event.h"
#include "ipcwatch.skel.h"

#define DEFAULT_BUFFER_BYTES (1024 * 1024)

struct collector {
	struct ipcwatch_bpf *skel;
	struct ring_buffer *rb;
	enum ipcw_mode mode;
	int cgroup_fd;
	collector_event_fn fn;
	void *ctx;
	uint64_t malformed;
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

/* Functions the fentry programs hook, all needed for that mode. */
static const char *const fentry_targets[] = {
	"newseg", "security_shm_alloc", "shmem_kernel_file_setup",
	"shm_more_checks", "do_shmat", "ipc_obtain_object_check",
	"exit_shm", "shm_destroy_orphaned", "shm_exit_ns", "shm_destroy",
	"__x64_sys_shmctl", "__do_semtimedop", "perform_atomic_semop",
};

static bool btf_has(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind) > 0;
}

/* The mode to use on this kernel, or -errno with the reason in @err. */
static int choose_mode(enum ipcw_mode want, char *err, size_t errlen)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool tp, fentry = true;
	const char *missing = NULL;
	size_t i;
	int ret;

	if (!btf) {
		snprintf(err, errlen,
			 "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "ipcwatch needs CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	tp = btf_has(btf, "btf_trace_shm_create", BTF_KIND_TYPEDEF);
	for (i = 0; i < sizeof(fentry_targets) / sizeof(*fentry_targets); i++)
		if (!btf_has(btf, fentry_targets[i], BTF_KIND_FUNC)) {
			fentry = false;
			missing = fentry_targets[i];
			break;
		}
	btf__free(btf);

	switch (want) {
	case IPCW_MODE_TRACEPOINT:
		ret = tp ? IPCW_MODE_TRACEPOINT : -EOPNOTSUPP;
		if (!tp)
			snprintf(err, errlen,
				 "--mode=tracepoint: this kernel has no ipc "
				 "tracepoints (see kernel-patches/)");
		return ret;
	case IPCW_MODE_FENTRY:
		if (!fentry)
			snprintf(err, errlen,
				 "--mode=fentry: function %s is not in this "
				 "kernel's BTF", missing);
		return fentry ? IPCW_MODE_FENTRY : -EOPNOTSUPP;
	default:
		if (tp)
			return IPCW_MODE_TRACEPOINT;
		if (fentry)
			return IPCW_MODE_FENTRY;
		snprintf(err, errlen,
			 "this kernel has neither the ipc tracepoints nor the "
			 "function %s for fentry", missing);
		return -EOPNOTSUPP;
	}
}

static int handle_record(void *ctx, void *data, size_t size)
{
	struct collector *c = ctx;
	struct ipcw_event e;

	if (event_decode(data, size, &e)) {
		c->malformed++;
		return 0;
	}
	return c->fn(&e, c->ctx);
}

static const char *load_error(int err)
{
	/* EACCES is the verifier's refusal, EPERM a missing right */
	switch (-err) {
	case EPERM:
		return "BPF not permitted: run as root (CAP_BPF, CAP_PERFMON "
		       "and CAP_SYS_RESOURCE)";
	default:
		return NULL;
	}
}

struct collector *collector_open(const struct collector_opts *opts,
				 collector_event_fn fn, void *ctx,
				 char *err, size_t errlen)
{
	struct collector *c = calloc(1, sizeof(*c));
	struct bpf_program *prog;
	const char *why;
	int mode, ret, key = 0;
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

	mode = choose_mode(opts->mode, err, errlen);
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

	c->skel = ipcwatch_bpf__open();
	if (!c->skel) {
		snprintf(err, errlen, "cannot open the BPF object: %s",
			 strerror(errno));
		goto fail;
	}
	c->skel->rodata->targ_tgid = opts->pid;
	c->skel->rodata->filter_uid = opts->filter_uid;
	c->skel->rodata->targ_uid = opts->uid;
	c->skel->rodata->targ_ipcns = opts->ipcns;
	c->skel->rodata->filter_cgroup = opts->cgroup != NULL;
	c->skel->rodata->failed_only = opts->failed_only;
	bpf_map__set_max_entries(c->skel->maps.events, bytes);

	/* Only this mode's programs: the others' hooks may not exist. */
	bpf_object__for_each_program(prog, c->skel->obj) {
		bool tp = !strncmp(bpf_program__name(prog), "tp_", 3);

		bpf_program__set_autoload(prog,
					  tp == (mode == IPCW_MODE_TRACEPOINT));
	}
	/* hugetlbfs may be configured out: that hook is optional */
	if (mode == IPCW_MODE_FENTRY) {
		struct btf *btf = btf__load_vmlinux_btf();

		if (btf && !btf_has(btf, "hugetlb_file_setup", BTF_KIND_FUNC))
			bpf_program__set_autoload(
				c->skel->progs.fx_hugetlb_file_setup, false);
		btf__free(btf);
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
		goto fail;
	}
	if (c->cgroup_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.cgroup_filter),
				&key, &c->cgroup_fd, BPF_ANY)) {
		snprintf(err, errlen, "cgroup %s: %s", opts->cgroup,
			 strerror(errno));
		goto fail;
	}
	ret = ipcwatch_bpf__attach(c->skel);
	if (ret) {
		why = load_error(ret);
		snprintf(err, errlen, "cannot attach the BPF programs: %s",
			 why ? why : strerror(-ret));
		goto fail;
	}
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

uint64_t collector_lost(struct collector *c)
{
	return percpu_map_sum(bpf_map__fd(c->skel->maps.lost_events), 0);
}

uint64_t collector_malformed(struct collector *c)
{
	return c->malformed;
}

enum ipcw_mode collector_mode(const struct collector *c)
{
	return c->mode;
}

void collector_close(struct collector *c)
{
	if (!c)
		return;
	ring_buffer__free(c->rb);
	ipcwatch_bpf__destroy(c->skel);
	if (c->cgroup_fd >= 0)
		close(c->cgroup_fd);
	free(c);
}
