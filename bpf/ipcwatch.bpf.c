// SPDX-License-Identifier: GPL-2.0
/*
 * ipcwatch collector: System V shm and semaphore events into one ring
 * buffer.
 *
 * Three sets of programs, one chosen at load time by user space:
 *  - tp_btf programs on the ipc trace events of the kernel-patches/ series;
 *  - fentry/fexit programs on the functions behind the same events, for stock
 *    kernels with BTF. shm_attach/shm_detach exist only as tracepoints;
 *  - kprobe/kretprobe twins of the fentry ones, for kernels without BPF
 *    trampolines.
 *
 * Filters are read-only data set before load. Per-thread state is keyed
 * by the whole pid_tgid, kept in LRU maps (a full map evicts the oldest
 * entry rather than refusing a new one) and dropped when the thread
 * exits. Every event the ring buffer cannot take, and every per-thread
 * record that could not be kept, is counted in lost_events; user space
 * reports it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ipc_trace.h"
#include "ipcwatch.h"

#define ENOMEM		12
#define EINVAL		22
#define ENOSPC		28
#define IPC_64		0x0100
#define IPC_RMID	0
#define SHM_HUGETLB	04000
#define SHM_RND		020000
#define SHM_REMAP	040000
#define SHM_DEST	01000

/* The running kernel's page size (4K, 16K, 64K on arm64), set by user
 * space before load. */
const volatile __u32 page_shift = 12;
#define PAGE_SHIFT	page_shift
#define PAGE_SIZE	(1UL << page_shift)
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

#define IPCW_BODY_OFFSET __builtin_offsetof(struct ipcw_event, shm_create)

/* Filters, set by user space before load; 0 / false: no filter. */
const volatile __u32 targ_tgid;
const volatile bool filter_uid;
const volatile __u32 targ_uid;
const volatile __u32 targ_ipcns;
const volatile bool filter_cgroup;
const volatile bool failed_only;
/*
 * fentry mode: the details (user/hooks.h, enum hook_detail) whose hooks
 * are attached, written by user space once the attach is done; where
 * one is missing, events say "unexplained" instead of guessing.
 */
__u32 details;

#define DETAIL_CREATE_STAGE	(1 << 0)
#define DETAIL_CREATE_HUGETLB	(1 << 1)
#define DETAIL_DESTROY_CAUSE	(1 << 4)
#define DETAIL_SEM_STAGE	(1 << 6)
#define DETAIL_SEM_DESTROY_CAUSE (1 << 8)

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);	/* resized by user space */
} events SEC(".maps");

/* Events the ring buffer could not take, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

/* A task asleep in semop(): when and on what, for sem_wake. */
struct sem_sleep {
	__u64 ts_ns;
	const struct sembuf *sops;	/* fentry mode: the caller's array */
	__u16 sem_num;
	__s16 sem_op;
	bool blocked;
	bool timeout;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);		/* pid_tgid */
	__type(value, struct sem_sleep);
} sem_sleepers SEC(".maps");

/* An event that cannot be delivered is lost, and counted. */
static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *lost = bpf_map_lookup_elem(&lost_events, &zero);

	if (lost)
		__sync_fetch_and_add(lost, 1);
}

/* Per-thread state that cannot be kept loses the event it is for. */
static __always_inline void keep(void *map, const void *key, const void *val)
{
	if (bpf_map_update_elem(map, key, val, BPF_ANY))
		count_lost();
}

static __always_inline bool wanted(__u32 ipcns, bool failed)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	if (failed_only && !failed)
		return false;
	if (targ_tgid && pid_tgid >> 32 != targ_tgid)
		return false;
	if (filter_uid && (__u32)bpf_get_current_uid_gid() != targ_uid)
		return false;
	if (targ_ipcns && ipcns != targ_ipcns)
		return false;
	if (filter_cgroup && !bpf_current_task_under_cgroup(&cgroup_filter, 0))
		return false;
	return true;
}

/* The common part of a record, the body zeroed. */
static __always_inline void event_header(struct ipcw_event *e, __u32 type,
					 __u32 ipcns)
{
	__u64 pid_tgid, uid_gid;

	pid_tgid = bpf_get_current_pid_tgid();
	uid_gid = bpf_get_current_uid_gid();
	e->ts_ns = bpf_ktime_get_ns();
	e->cgroup_id = bpf_get_current_cgroup_id();
	e->type = type;
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->uid = (__u32)uid_gid;
	e->gid = uid_gid >> 32;
	e->ipcns = ipcns;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	__builtin_memset((void *)e + IPCW_BODY_OFFSET, 0,
			 sizeof(*e) - IPCW_BODY_OFFSET);
}

/* Reserve and fill the common part, or count the loss. */
static __always_inline struct ipcw_event *event_start(__u32 type, __u32 ipcns,
						       bool failed)
{
	struct ipcw_event *e;

	if (!wanted(ipcns, failed))
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return NULL;
	}
	event_header(e, type, ipcns);
	return e;
}

static __always_inline __u32 ns_inum(const struct ipc_namespace *ns)
{
	return BPF_CORE_READ(ns, ns.inum);
}

static __always_inline __u32 current_ipcns(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return BPF_CORE_READ(task, nsproxy, ipc_ns, ns.inum);
}

static __always_inline struct sem_array *
to_sem_array(const struct kern_ipc_perm *perm)
{
	return (void *)perm - bpf_core_field_offset(struct sem_array,
						    sem_perm);
}

/* The limits a creation was judged by, each read once. */
struct shm_limits {
	__u64 shmmax;
	__u64 shmall;
	__s32 shmmni;
};

static __always_inline void read_limits(const struct ipc_namespace *ns,
					struct shm_limits *lim)
{
	lim->shmmax = BPF_CORE_READ(ns, shm_ctlmax);
	lim->shmall = BPF_CORE_READ(ns, shm_ctlall);
	lim->shmmni = BPF_CORE_READ(ns, shm_ctlmni);
}

static __always_inline void fill_create(struct ipcw_event *e,
					const struct shm_limits *lim,
					key_t key, __u64 size, int shmflg,
					__u64 shm_tot, int ret, __u32 reason,
					__u64 existing_size)
{
	struct ipcw_shm_create *c = &e->shm_create;

	c->size = size;
	c->pages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	c->shmmax = lim->shmmax;
	c->shmall = lim->shmall;
	c->shmmni = lim->shmmni;
	c->shm_tot = shm_tot;
	c->existing_size = existing_size;
	c->key = key;
	c->shmflg = shmflg;
	c->id = ret >= 0 ? ret : -1;
	c->err = ret < 0 ? -ret : 0;
	c->reason = reason;
}

/* @timed_out: 1 or 0, or -1 when the hook cannot tell */
static __always_inline void emit_sem_wake(const struct sem_sleep *s, int semid,
					  __u32 ipcns, int err, int timed_out)
{
	struct ipcw_event *e = event_start(IPCW_SEM_WAKE, ipcns, err != 0);

	if (!e)
		return;
	e->sem_wake.id = semid;
	e->sem_wake.err = -err;
	e->sem_wake.timed_out = timed_out > 0;
	e->sem_wake.timed_out_known = timed_out >= 0;
	e->sem_wake.slept_ns = s ? e->ts_ns - s->ts_ns : 0;
	e->sem_wake.sem_num = s ? s->sem_num : 0;
	e->sem_wake.sem_op = s ? s->sem_op : 0;
	bpf_ringbuf_submit(e, 0);
}

/* Index of @op in @sops: unsigned, BPF has no signed division. */
static __always_inline __u32 sembuf_index(const struct sembuf *sops,
					  const struct sembuf *op)
{
	return ((unsigned long)op - (unsigned long)sops) /
	       sizeof(struct sembuf);
}

/* The limits a semget() was judged by, each read once. */
struct sem_limits {
	__s32 semmsl;
	__s32 semmns;
	__s32 semmni;
	__s32 used_sems;	/* in use before the request */
};

static __always_inline void read_sem_limits(const struct ipc_namespace *ns,
					    struct sem_limits *lim)
{
	/* sem_ctls[]: SEMMSL, SEMMNS, SEMOPM, SEMMNI */
	lim->semmsl = BPF_CORE_READ(ns, sem_ctls[0]);
	lim->semmns = BPF_CORE_READ(ns, sem_ctls[1]);
	lim->semmni = BPF_CORE_READ(ns, sem_ctls[3]);
	lim->used_sems = BPF_CORE_READ(ns, used_sems);
}

static __always_inline void emit_sem_create(__u32 ipcns,
					    const struct sem_limits *lim,
					    key_t key, int nsems, int semflg,
					    int ret, __u32 reason,
					    int existing_nsems)
{
	struct ipcw_event *e = event_start(IPCW_SEM_CREATE, ipcns, ret < 0);
	struct ipcw_sem_create *c;

	if (!e)
		return;
	c = &e->sem_create;
	c->key = key;
	c->nsems = nsems;
	c->semflg = semflg;
	c->semmsl = lim->semmsl;
	c->semmns = lim->semmns;
	c->semmni = lim->semmni;
	c->used_sems = lim->used_sems;
	c->existing_nsems = existing_nsems;
	c->id = ret >= 0 ? ret : -1;
	c->err = ret < 0 ? -ret : 0;
	c->reason = reason;
	bpf_ringbuf_submit(e, 0);
}

/* @waiters, @undos: -1 when the hook cannot count them */
static __always_inline void emit_sem_destroy(__u32 ipcns,
					     const struct kern_ipc_perm *perm,
					     int nsems, __s64 ctime,
					     int waiters, int undos,
					     __u32 cause)
{
	struct ipcw_event *e = event_start(IPCW_SEM_DESTROY, ipcns, false);
	struct ipcw_sem_destroy *d;

	if (!e)
		return;
	d = &e->sem_destroy;
	d->id = BPF_CORE_READ(perm, id);
	d->key = BPF_CORE_READ(perm, key);
	d->owner_uid = BPF_CORE_READ(perm, uid.val);
	d->cuid = BPF_CORE_READ(perm, cuid.val);
	d->cgid = BPF_CORE_READ(perm, cgid.val);
	d->nsems = nsems;
	d->ctime = ctime;
	d->counts_known = waiters >= 0;
	d->waiters = waiters >= 0 ? waiters : 0;
	d->undos = undos >= 0 ? undos : 0;
	d->cause = cause;
	bpf_ringbuf_submit(e, 0);
}

/* ---- tracepoint mode: the ipc trace events ---------------------------- */

/*
 * The kernel's reasons and causes, mapped by name: the series promises
 * no values. A name this kernel lacks is never matched (the _exists
 * check is resolved at load time); a value no name matches is
 * unexplained.
 */
#define KERNEL_IS(type, name, v)					\
	(bpf_core_enum_value_exists(type, name) &&			\
	 (v) == bpf_core_enum_value(type, name))

static __always_inline __u32 create_reason(int v)
{
#define R(name, ours)							\
	if (KERNEL_IS(enum ipc_shm_create_reason, name, v))		\
		return ours
	R(IPC_SHM_CREATE_OK, IPCW_CREATE_OK);
	R(IPC_SHM_CREATE_TOO_SMALL, IPCW_CREATE_TOO_SMALL);
	R(IPC_SHM_CREATE_OVER_SHMMAX, IPCW_CREATE_OVER_SHMMAX);
	R(IPC_SHM_CREATE_PAGE_OVERFLOW, IPCW_CREATE_PAGE_OVERFLOW);
	R(IPC_SHM_CREATE_TOTAL_WRAP, IPCW_CREATE_TOTAL_WRAP);
	R(IPC_SHM_CREATE_OVER_SHMALL, IPCW_CREATE_OVER_SHMALL);
	R(IPC_SHM_CREATE_NO_IDS, IPCW_CREATE_NO_IDS);
	R(IPC_SHM_CREATE_EXISTING_SMALLER, IPCW_CREATE_EXISTING_SMALLER);
	R(IPC_SHM_CREATE_LSM_DENIED, IPCW_CREATE_LSM_DENIED);
	R(IPC_SHM_CREATE_NOMEM, IPCW_CREATE_NOMEM);
	R(IPC_SHM_CREATE_FILE_SETUP, IPCW_CREATE_FILE_SETUP);
	R(IPC_SHM_CREATE_BAD_HUGEPAGE, IPCW_CREATE_BAD_HUGEPAGE);
#undef R
	return IPCW_CREATE_UNEXPLAINED;
}

static __always_inline __u32 shmat_reason(int v)
{
#define R(name, ours)							\
	if (KERNEL_IS(enum ipc_shmat_reason, name, v))			\
		return ours
	R(IPC_SHMAT_OK, IPCW_SHMAT_OK);
	R(IPC_SHMAT_BAD_ARGS, IPCW_SHMAT_BAD_ARGS);
	R(IPC_SHMAT_NO_SEGMENT, IPCW_SHMAT_NO_SEGMENT);
	R(IPC_SHMAT_NO_ACCESS, IPCW_SHMAT_NO_ACCESS);
	R(IPC_SHMAT_LSM_DENIED, IPCW_SHMAT_LSM_DENIED);
	R(IPC_SHMAT_REMOVED, IPCW_SHMAT_REMOVED);
	R(IPC_SHMAT_NOMEM, IPCW_SHMAT_NOMEM);
	R(IPC_SHMAT_INTERRUPTED, IPCW_SHMAT_INTERRUPTED);
	R(IPC_SHMAT_ADDR_WRAP, IPCW_SHMAT_ADDR_WRAP);
	R(IPC_SHMAT_ADDR_OVERLAP, IPCW_SHMAT_ADDR_OVERLAP);
	R(IPC_SHMAT_MMAP_FAILED, IPCW_SHMAT_MMAP_FAILED);
#undef R
	return IPCW_SHMAT_UNEXPLAINED;
}

static __always_inline __u32 destroy_cause(int v)
{
#define R(name, ours)							\
	if (KERNEL_IS(enum ipc_shm_destroy_cause, name, v))		\
		return ours
	R(IPC_SHM_DESTROY_RMID, IPCW_DESTROY_RMID);
	R(IPC_SHM_DESTROY_LAST_DETACH, IPCW_DESTROY_LAST_DETACH);
	R(IPC_SHM_DESTROY_ORPHAN_EXIT, IPCW_DESTROY_ORPHAN_EXIT);
	R(IPC_SHM_DESTROY_ORPHAN_SYSCTL, IPCW_DESTROY_ORPHAN_SYSCTL);
	R(IPC_SHM_DESTROY_NS_EXIT, IPCW_DESTROY_NS_EXIT);
	R(IPC_SHM_DESTROY_FORCED_DETACH, IPCW_DESTROY_FORCED_DETACH);
	R(IPC_SHM_DESTROY_SHMAT_FAILED, IPCW_DESTROY_SHMAT_FAILED);
#undef R
	return IPCW_DESTROY_UNEXPLAINED;
}

static __always_inline __u32 sem_create_reason(int v)
{
#define R(name, ours)							\
	if (KERNEL_IS(enum ipc_sem_create_reason, name, v))		\
		return ours
	R(IPC_SEM_CREATE_OK, IPCW_SEM_CREATE_OK);
	R(IPC_SEM_CREATE_BAD_NSEMS, IPCW_SEM_CREATE_BAD_NSEMS);
	R(IPC_SEM_CREATE_OVER_SEMMSL, IPCW_SEM_CREATE_OVER_SEMMSL);
	R(IPC_SEM_CREATE_NO_NSEMS, IPCW_SEM_CREATE_NO_NSEMS);
	R(IPC_SEM_CREATE_OVER_SEMMNS, IPCW_SEM_CREATE_OVER_SEMMNS);
	R(IPC_SEM_CREATE_NO_IDS, IPCW_SEM_CREATE_NO_IDS);
	R(IPC_SEM_CREATE_EXISTING_FEWER, IPCW_SEM_CREATE_EXISTING_FEWER);
	R(IPC_SEM_CREATE_LSM_DENIED, IPCW_SEM_CREATE_LSM_DENIED);
	R(IPC_SEM_CREATE_NOMEM, IPCW_SEM_CREATE_NOMEM);
#undef R
	return IPCW_SEM_CREATE_UNEXPLAINED;
}

static __always_inline __u32 sem_destroy_cause(int v)
{
#define R(name, ours)							\
	if (KERNEL_IS(enum ipc_sem_destroy_cause, name, v))		\
		return ours
	R(IPC_SEM_DESTROY_RMID, IPCW_SEM_DESTROY_RMID);
	R(IPC_SEM_DESTROY_NS_EXIT, IPCW_SEM_DESTROY_NS_EXIT);
#undef R
	return IPCW_SEM_DESTROY_UNEXPLAINED;
}

SEC("tp_btf/shm_create")
int BPF_PROG(tp_shm_create, IPC_TP_SHM_CREATE)
{
	/* the limits as the kernel compared them, from the event itself */
	struct shm_limits lim = { .shmmax = shmmax, .shmall = shmall,
				  .shmmni = shmmni };
	struct ipcw_event *e = event_start(IPCW_SHM_CREATE, ns_inum(ns),
					   ret < 0);

	if (!e)
		return 0;
	fill_create(e, &lim, key, size, shmflg, shm_tot, ret,
		    create_reason(reason), existing_size);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/shmat")
int BPF_PROG(tp_shmat, IPC_TP_SHMAT)
{
	struct ipcw_event *e = event_start(IPCW_SHMAT, ns_inum(ns), ret != 0);

	if (!e)
		return 0;
	/* addr, shmflg and raddr are the system call's: not in the event */
	e->shmat.id = shmid;
	e->shmat.size = size;
	e->shmat.err = -ret;
	e->shmat.reason = shmat_reason(reason);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int nattch_event(__u32 type,
					const struct ipc_namespace *ns, int id,
					unsigned long nattch)
{
	struct ipcw_event *e = event_start(type, ns_inum(ns), false);

	if (!e)
		return 0;
	e->nattch.id = id;
	e->nattch.nattch = nattch;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/shm_attach")
int BPF_PROG(tp_shm_attach, IPC_TP_SHM_NATTCH)
{
	return nattch_event(IPCW_SHM_ATTACH, ns, id, nattch);
}

SEC("tp_btf/shm_detach")
int BPF_PROG(tp_shm_detach, IPC_TP_SHM_NATTCH)
{
	return nattch_event(IPCW_SHM_DETACH, ns, id, nattch);
}

static __always_inline void fill_destroy(struct ipcw_event *e,
					 const struct kern_ipc_perm *perm,
					 __u64 size, __s32 cpid, __s64 ctime,
					 __u32 cause)
{
	struct ipcw_shm_destroy *d = &e->shm_destroy;

	d->id = BPF_CORE_READ(perm, id);
	d->key = BPF_CORE_READ(perm, key);
	d->owner_uid = BPF_CORE_READ(perm, uid.val);
	d->cuid = BPF_CORE_READ(perm, cuid.val);
	d->cgid = BPF_CORE_READ(perm, cgid.val);
	d->size = size;
	d->pages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	d->cpid = cpid;
	d->ctime = ctime;
	d->cause = cause;
}

SEC("tp_btf/shm_destroy")
int BPF_PROG(tp_shm_destroy, IPC_TP_SHM_DESTROY)
{
	struct ipcw_event *e = event_start(IPCW_SHM_DESTROY, ns_inum(ns),
					   false);

	if (!e)
		return 0;
	fill_destroy(e, perm, size, cpid, ctime, destroy_cause(cause));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/shm_orphan")
int BPF_PROG(tp_shm_orphan, IPC_TP_SHM_ORPHAN)
{
	struct ipcw_event *e = event_start(IPCW_SHM_ORPHAN, ns_inum(ns),
					   false);

	if (!e)
		return 0;
	e->shm_orphan.id = BPF_CORE_READ(perm, id);
	e->shm_orphan.key = BPF_CORE_READ(perm, key);
	e->shm_orphan.owner_uid = BPF_CORE_READ(perm, uid.val);
	e->shm_orphan.size = size;
	e->shm_orphan.pages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;
	e->shm_orphan.nattch = nattch;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sem_block")
int BPF_PROG(tp_sem_block, IPC_TP_SEM_BLOCK)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep s = {
		.ts_ns = bpf_ktime_get_ns(),
		.sem_num = blocking->sem_num,
		.sem_op = blocking->sem_op,
		.blocked = true,
		.timeout = timeout,
	};
	struct ipcw_event *e;

	keep(&sem_sleepers, &pid_tgid, &s);
	e = event_start(IPCW_SEM_BLOCK, ns_inum(ns), false);
	if (!e)
		return 0;
	e->sem_block.id = semid;
	e->sem_block.nsops = nsops;
	e->sem_block.index = sembuf_index(sops, blocking);
	e->sem_block.sem_num = blocking->sem_num;
	e->sem_block.sem_op = blocking->sem_op;
	e->sem_block.sem_flg = blocking->sem_flg;
	e->sem_block.zcnt = blocking->sem_op == 0;
	e->sem_block.timeout = timeout;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sem_wake")
int BPF_PROG(tp_sem_wake, IPC_TP_SEM_WAKE)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep *s = bpf_map_lookup_elem(&sem_sleepers, &pid_tgid);

	emit_sem_wake(s, semid, ns_inum(ns), err, timed_out);
	if (s)
		bpf_map_delete_elem(&sem_sleepers, &pid_tgid);
	return 0;
}

SEC("tp_btf/sem_create")
int BPF_PROG(tp_sem_create, IPC_TP_SEM_CREATE)
{
	/* the limits as the kernel compared them, from the event itself */
	struct sem_limits lim = { .semmsl = semmsl, .semmns = semmns,
				  .semmni = semmni, .used_sems = used_sems };

	emit_sem_create(ns_inum(ns), &lim, key, nsems, semflg, ret,
			sem_create_reason(reason), existing_nsems);
	return 0;
}

SEC("tp_btf/sem_destroy")
int BPF_PROG(tp_sem_destroy, IPC_TP_SEM_DESTROY)
{
	emit_sem_destroy(ns_inum(ns), perm, nsems, ctime, waiters, undos,
			 sem_destroy_cause(cause));
	return 0;
}

SEC("tp_btf/sem_undo")
int BPF_PROG(tp_sem_undo, IPC_TP_SEM_UNDO)
{
	struct ipcw_event *e = event_start(IPCW_SEM_UNDO, ns_inum(ns), false);

	if (!e)
		return 0;
	e->sem_undo.id = semid;
	e->sem_undo.nsems = nsems;
	e->sem_undo.adjusted = adjusted;
	e->sem_undo.clamped = clamped;
	e->sem_undo.gone = gone;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * ---- fentry and kprobe modes: the functions behind the events ----------
 *
 * Each hook's work is one inline function; fentry/fexit programs call it
 * with the arguments BTF gives them, kprobe/kretprobe programs (kernels
 * that cannot attach BPF trampolines, such as arm64 before ftrace direct
 * calls) with the arguments of the registers. A kretprobe sees only the
 * return value: its kprobe keeps the arguments it needs per thread.
 */

/* Arguments a kprobe keeps for its kretprobe, per thread and hook. */
enum kp_hook {
	KP_NEWSEG,
	KP_MORE_CHECKS,
	KP_DO_SHMAT,
	KP_SHMCTL,
	KP_ATOMIC_SEMOP,
	KP_SEMTIMEDOP,
	KP_SEMGET,
	KP_NEWARY,
	KP_SEM_MORE_CHECKS,
	KP_HOOKS,
};

struct kp_key {
	__u64 pid_tgid;
	__u32 hook;		/* enum kp_hook */
	__u32 pad;
};

struct kp_args {
	__u64 a[5];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct kp_key);
	__type(value, struct kp_args);
} kp_stash SEC(".maps");

static __always_inline void kp_keep(__u32 hook, __u64 a0, __u64 a1, __u64 a2,
				    __u64 a3, __u64 a4)
{
	struct kp_key k = { .pid_tgid = bpf_get_current_pid_tgid(),
			    .hook = hook };
	struct kp_args v = { .a = { a0, a1, a2, a3, a4 } };

	keep(&kp_stash, &k, &v);
}

/* The arguments kept by the kprobe, taken out: false if none. */
static __always_inline bool kp_take(__u32 hook, struct kp_args *out)
{
	struct kp_key k = { .pid_tgid = bpf_get_current_pid_tgid(),
			    .hook = hook };
	struct kp_args *v = bpf_map_lookup_elem(&kp_stash, &k);

	if (!v)
		return false;
	*out = *v;
	bpf_map_delete_elem(&kp_stash, &k);
	return true;
}

/* How far newseg() got, to name the reason of a failure. */
enum newseg_stage {
	NEWSEG_ALLOC,		/* before security_shm_alloc() returned */
	NEWSEG_LSM_DENIED,
	NEWSEG_SECURED,		/* LSM passed, file not yet set up */
	NEWSEG_FILE_FAILED,
	NEWSEG_FILED,		/* file set up: only the id is left */
};

struct newseg_call {
	struct shm_limits lim;	/* read once, on entry */
	__u64 shm_tot;		/* before the request */
	__u32 stage;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct newseg_call);
} newseg_calls SEC(".maps");

static __always_inline int on_newseg_enter(struct ipc_namespace *ns)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call call = { .shm_tot = BPF_CORE_READ(ns, shm_tot) };

	/*
	 * newseg() reads the limits itself a moment later: a racing sysctl
	 * write can make the two differ, but the reason is always judged
	 * by the values the event reports.
	 */
	read_limits(ns, &call.lim);
	keep(&newseg_calls, &pid_tgid, &call);
	return 0;
}

SEC("fentry/newseg")
int BPF_PROG(fe_newseg, struct ipc_namespace *ns, struct ipc_params *params)
{
	return on_newseg_enter(ns);
}

SEC("kprobe/newseg")
int BPF_KPROBE(kp_newseg, struct ipc_namespace *ns, struct ipc_params *params)
{
	kp_keep(KP_NEWSEG, (__u64)ns, (__u64)params, 0, 0, 0);
	return on_newseg_enter(ns);
}

static __always_inline void on_security_shm_alloc_exit(int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call *call = bpf_map_lookup_elem(&newseg_calls, &pid_tgid);

	if (call)
		call->stage = ret ? NEWSEG_LSM_DENIED : NEWSEG_SECURED;
}

SEC("fexit/security_shm_alloc")
int BPF_PROG(fx_security_shm_alloc, struct kern_ipc_perm *perm, int ret)
{
	on_security_shm_alloc_exit(ret);
	return 0;
}

SEC("kretprobe/security_shm_alloc")
int BPF_KRETPROBE(kr_security_shm_alloc, int ret)
{
	on_security_shm_alloc_exit(ret);
	return 0;
}

static __always_inline void file_setup_done(struct file *file)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call *call = bpf_map_lookup_elem(&newseg_calls, &pid_tgid);

	if (call)
		call->stage = IS_ERR_VALUE(file) ? NEWSEG_FILE_FAILED :
						   NEWSEG_FILED;
}

SEC("fexit/shmem_kernel_file_setup")
int BPF_PROG(fx_shmem_file_setup, const char *name, loff_t size,
	     unsigned long flags, struct file *ret)
{
	file_setup_done(ret);
	return 0;
}

SEC("kretprobe/shmem_kernel_file_setup")
int BPF_KRETPROBE(kr_shmem_file_setup, struct file *ret)
{
	file_setup_done(ret);
	return 0;
}

SEC("fexit/hugetlb_file_setup")
int BPF_PROG(fx_hugetlb_file_setup, const char *name, size_t size,
	     vm_flags_t acctflag, int creat_flags, int page_size_log,
	     struct file *ret)
{
	file_setup_done(ret);
	return 0;
}

SEC("kretprobe/hugetlb_file_setup")
int BPF_KRETPROBE(kr_hugetlb_file_setup, struct file *ret)
{
	file_setup_done(ret);
	return 0;
}

/* newseg()'s checks, in its order, for the reason of a failure. */
static __always_inline __u32 newseg_reason(const struct shm_limits *lim,
					   __u64 size, int shmflg,
					   __u64 shm_tot, __u32 stage, int ret)
{
	__u64 pages = (size + PAGE_SIZE - 1) >> PAGE_SHIFT;

	/*
	 * The limits were read on entry, newseg() read them again: a
	 * racing sysctl write shows as a reason whose errno is not the one
	 * returned, which is then left unexplained rather than guessed.
	 */
	if (ret >= 0)
		return IPCW_CREATE_OK;
	if (size < 1)
		return ret == -EINVAL ? IPCW_CREATE_TOO_SMALL :
					IPCW_CREATE_UNEXPLAINED;
	if (size > lim->shmmax)
		return ret == -EINVAL ? IPCW_CREATE_OVER_SHMMAX :
					IPCW_CREATE_UNEXPLAINED;
	if (pages << PAGE_SHIFT < size)
		return ret == -ENOSPC ? IPCW_CREATE_PAGE_OVERFLOW :
					IPCW_CREATE_UNEXPLAINED;
	if (shm_tot + pages < shm_tot)
		return ret == -ENOSPC ? IPCW_CREATE_TOTAL_WRAP :
					IPCW_CREATE_UNEXPLAINED;
	if (shm_tot + pages > lim->shmall)
		return ret == -ENOSPC ? IPCW_CREATE_OVER_SHMALL :
					IPCW_CREATE_UNEXPLAINED;
	/* past the limit checks, only the stage hooks can tell */
	if (!(details & DETAIL_CREATE_STAGE) ||
	    ((shmflg & SHM_HUGETLB) && !(details & DETAIL_CREATE_HUGETLB)))
		return IPCW_CREATE_UNEXPLAINED;
	switch (stage) {
	case NEWSEG_ALLOC:
		/* or a limit check that passed here and failed in newseg() */
		return ret == -ENOMEM ? IPCW_CREATE_NOMEM :
					IPCW_CREATE_UNEXPLAINED;
	case NEWSEG_LSM_DENIED:
		/* security_shm_alloc() allocates the modules' blob first */
		return ret == -ENOMEM ? IPCW_CREATE_NOMEM :
					IPCW_CREATE_LSM_DENIED;
	case NEWSEG_SECURED:
		/* only the huge page size check fails between the two */
		return (shmflg & SHM_HUGETLB) && ret == -EINVAL ?
			IPCW_CREATE_BAD_HUGEPAGE : IPCW_CREATE_FILE_SETUP;
	case NEWSEG_FILE_FAILED:
		return IPCW_CREATE_FILE_SETUP;
	default:
		return ret == -ENOSPC ? IPCW_CREATE_NO_IDS : IPCW_CREATE_NOMEM;
	}
}

static __always_inline void on_newseg_exit(struct ipc_namespace *ns,
					   struct ipc_params *params, int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct newseg_call *call = bpf_map_lookup_elem(&newseg_calls, &pid_tgid);
	__u64 size = BPF_CORE_READ(params, u.size);
	int shmflg = BPF_CORE_READ(params, flg);
	struct ipcw_event *e;

	if (!call)
		return;
	e = event_start(IPCW_SHM_CREATE, ns_inum(ns), ret < 0);
	if (e) {
		fill_create(e, &call->lim, BPF_CORE_READ(params, key), size,
			    shmflg, call->shm_tot, ret,
			    newseg_reason(&call->lim, size, shmflg,
					  call->shm_tot, call->stage, ret), 0);
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&newseg_calls, &pid_tgid);
}

SEC("fexit/newseg")
int BPF_PROG(fx_newseg, struct ipc_namespace *ns, struct ipc_params *params,
	     int ret)
{
	on_newseg_exit(ns, params, ret);
	return 0;
}

SEC("kretprobe/newseg")
int BPF_KRETPROBE(kr_newseg, int ret)
{
	struct kp_args a;

	if (kp_take(KP_NEWSEG, &a))
		on_newseg_exit((void *)a.a[0], (void *)a.a[1], ret);
	return 0;
}

static __always_inline struct shmid_kernel *
to_shmid_kernel(const struct kern_ipc_perm *perm)
{
	return (void *)perm - bpf_core_field_offset(struct shmid_kernel,
						    shm_perm);
}

static __always_inline void on_more_checks_exit(struct kern_ipc_perm *ipcp,
						struct ipc_params *params,
						int ret)
{
	struct shmid_kernel *shp = to_shmid_kernel(ipcp);
	struct ipc_namespace *ns = BPF_CORE_READ(shp, ns);
	struct shm_limits lim;
	struct ipcw_event *e;

	if (ret != -EINVAL)
		return;
	e = event_start(IPCW_SHM_CREATE, ns_inum(ns), true);
	if (!e)
		return;
	read_limits(ns, &lim);
	fill_create(e, &lim, BPF_CORE_READ(params, key),
		    BPF_CORE_READ(params, u.size), BPF_CORE_READ(params, flg),
		    BPF_CORE_READ(ns, shm_tot), ret,
		    IPCW_CREATE_EXISTING_SMALLER, BPF_CORE_READ(shp, shm_segsz));
	bpf_ringbuf_submit(e, 0);
}

SEC("fexit/shm_more_checks")
int BPF_PROG(fx_shm_more_checks, struct kern_ipc_perm *ipcp,
	     struct ipc_params *params, int ret)
{
	on_more_checks_exit(ipcp, params, ret);
	return 0;
}

SEC("kprobe/shm_more_checks")
int BPF_KPROBE(kp_shm_more_checks, struct kern_ipc_perm *ipcp,
	       struct ipc_params *params)
{
	kp_keep(KP_MORE_CHECKS, (__u64)ipcp, (__u64)params, 0, 0, 0);
	return 0;
}

SEC("kretprobe/shm_more_checks")
int BPF_KRETPROBE(kr_shm_more_checks, int ret)
{
	struct kp_args a;

	if (kp_take(KP_MORE_CHECKS, &a))
		on_more_checks_exit((void *)a.a[0], (void *)a.a[1], ret);
	return 0;
}

/* A do_shmat() in progress: the segment it looked up, for its size. */
struct shmat_call {
	__u64 size;		/* 0 until found */
	__s32 id;		/* asked for */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct shmat_call);
} shmat_calls SEC(".maps");

/*
 * fentry mode: a destruction inside do_shmat() of the segment it
 * attaches, held until its exit tells whether the shmat() failed
 * (shmat_failed) or another thread unmapped the new mapping before it
 * returned (a detach cause). fexit always runs; kprobe mode, where a
 * kretprobe can be missed, does not hold and says shmat_failed.
 */
struct held_destroy {
	struct ipcw_event e;
	__u32 cause_if_ok;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct held_destroy);
} held_destroys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct held_destroy);
} held_scratch SEC(".maps");

static __always_inline void release_held_destroy(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct held_destroy *h = bpf_map_lookup_elem(&held_destroys, &pid_tgid);

	if (!h)
		return;
	h->e.shm_destroy.cause = ret ? IPCW_DESTROY_SHMAT_FAILED :
				       h->cause_if_ok;
	if (bpf_ringbuf_output(&events, &h->e, sizeof(h->e), 0))
		count_lost();
	bpf_map_delete_elem(&held_destroys, &pid_tgid);
}

static __always_inline void on_do_shmat_enter(int shmid)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct shmat_call call = { .id = shmid };

	keep(&shmat_calls, &pid_tgid, &call);
}

SEC("fentry/do_shmat")
int BPF_PROG(fe_do_shmat, int shmid, char *shmaddr, int shmflg)
{
	on_do_shmat_enter(shmid);
	return 0;
}

SEC("kprobe/do_shmat")
int BPF_KPROBE(kp_do_shmat, int shmid, char *shmaddr, int shmflg,
	       unsigned long *raddr, unsigned long shmlba)
{
	kp_keep(KP_DO_SHMAT, shmid, (__u64)shmaddr, shmflg, (__u64)raddr,
		shmlba);
	on_do_shmat_enter(shmid);
	return 0;
}

static __always_inline void on_obtain_object_exit(struct kern_ipc_perm *ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct shmat_call *call = bpf_map_lookup_elem(&shmat_calls, &pid_tgid);

	/* what do_shmat() maps: the file's size (huge page rounded) */
	if (call && !IS_ERR_VALUE(ret))
		call->size = BPF_CORE_READ(to_shmid_kernel(ret), shm_file,
					   f_inode, i_size);
}

/*
 * fentry mode: the LSM hook do_shmat() calls with the segment it found.
 * ipc_obtain_object_check() would do as well, but every IPC lookup
 * (every semop() among them) passes there.
 */
SEC("fentry/security_shm_shmat")
int BPF_PROG(fe_security_shm_shmat, struct kern_ipc_perm *shp, char *shmaddr,
	     int shmflg)
{
	on_obtain_object_exit(shp);
	return 0;
}

SEC("kretprobe/ipc_obtain_object_check")
int BPF_KRETPROBE(kr_ipc_obtain_object_check, struct kern_ipc_perm *ret)
{
	on_obtain_object_exit(ret);
	return 0;
}

static __always_inline void on_do_shmat_exit(int shmid, unsigned long addr,
					     int shmflg, unsigned long *raddr,
					     unsigned long shmlba, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct shmat_call *call = bpf_map_lookup_elem(&shmat_calls, &pid_tgid);
	struct ipcw_event *e;
	__u64 size;

	/* the kernel reports a destruction first, then the shmat */
	release_held_destroy(ret);
	if (!call)
		return;
	size = call->size;
	e = event_start(IPCW_SHMAT, current_ipcns(), ret != 0);
	if (e) {
		e->shmat.id = shmid;
		e->shmat.addr = addr;
		e->shmat.shmflg = shmflg;
		e->shmat.size = size;
		e->shmat.err = -ret;
		e->shmat.args_known = 1;
		if (!ret)
			bpf_probe_read_kernel(&e->shmat.raddr,
					      sizeof(e->shmat.raddr), raddr);
		/* do_shmat()'s own check, on the address it rounded */
		if ((shmflg & SHM_RND) && shmlba)
			addr &= ~(shmlba - 1);
		/* of the refusals, only the wrap can be told from outside */
		if (!ret)
			e->shmat.reason = IPCW_SHMAT_OK;
		else if (ret == -EINVAL && addr && size &&
			 !(shmflg & SHM_REMAP) && addr + size < addr)
			e->shmat.reason = IPCW_SHMAT_ADDR_WRAP;
		else
			e->shmat.reason = IPCW_SHMAT_UNEXPLAINED;
		bpf_ringbuf_submit(e, 0);
	}
	bpf_map_delete_elem(&shmat_calls, &pid_tgid);
}

SEC("fexit/do_shmat")
int BPF_PROG(fx_do_shmat, int shmid, char *shmaddr, int shmflg,
	     unsigned long *raddr, unsigned long shmlba, long ret)
{
	on_do_shmat_exit(shmid, (unsigned long)shmaddr, shmflg, raddr, shmlba,
			 ret);
	return 0;
}

SEC("kretprobe/do_shmat")
int BPF_KRETPROBE(kr_do_shmat, long ret)
{
	struct kp_args a;

	if (kp_take(KP_DO_SHMAT, &a))
		on_do_shmat_exit((int)a.a[0], a.a[1], (int)a.a[2],
				 (void *)a.a[3], a.a[4], ret);
	return 0;
}

/*
 * The cause of a destruction, from the caller we are in: a bit per
 * context, set on entry and cleared on return of each caller.
 */
enum destroy_ctx {
	CTX_RMID = 1,
	CTX_ORPHAN_EXIT = 2,
	CTX_ORPHAN_SYSCTL = 4,
	CTX_NS_EXIT = 8,
	CTX_SEM_NS_EXIT = 16,
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, __u32);
} destroy_ctx SEC(".maps");

static __always_inline void ctx_set(__u32 bit, bool on)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 *bits = bpf_map_lookup_elem(&destroy_ctx, &pid_tgid), val;

	val = (bits ? *bits : 0);
	val = on ? val | bit : val & ~bit;
	if (val)
		keep(&destroy_ctx, &pid_tgid, &val);
	else if (bits)
		bpf_map_delete_elem(&destroy_ctx, &pid_tgid);
}

static __always_inline void emit_shmctl(int shmid, int cmd, long ret)
{
	struct ipcw_event *e = event_start(IPCW_SHMCTL, current_ipcns(),
					   ret < 0);

	if (!e)
		return;
	e->shmctl.id = shmid;
	e->shmctl.cmd = cmd & ~IPC_64;
	e->shmctl.ret = ret;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void on_shmctl_exit(int shmid, int cmd, long ret)
{
	ctx_set(CTX_RMID, false);
	emit_shmctl(shmid, cmd, ret);
}

/*
 * IPC_RMID: do_shm_rmid() itself may be inlined, the syscall is not. The
 * fentry target is the syscall's wrapper of the running architecture
 * (__x64_sys_shmctl, __arm64_sys_shmctl), set by user space before load;
 * the wrapper takes the user's registers. libbpf finds the wrapper of a
 * ksyscall program itself.
 */
SEC("fentry")
int BPF_PROG(fe_sys_shmctl, const struct pt_regs *regs)
{
	if ((PT_REGS_PARM2_CORE_SYSCALL(regs) & ~IPC_64) == IPC_RMID)
		ctx_set(CTX_RMID, true);
	return 0;
}

SEC("fexit")
int BPF_PROG(fx_sys_shmctl, const struct pt_regs *regs, long ret)
{
	on_shmctl_exit(PT_REGS_PARM1_CORE_SYSCALL(regs),
		       PT_REGS_PARM2_CORE_SYSCALL(regs), ret);
	return 0;
}

/*
 * Tracepoint mode: the series leaves shmctl() to the system call, whose
 * outcome the fexit of its wrapper gives. syscalls:sys_exit_shmctl would
 * need CONFIG_FTRACE_SYSCALLS and, once enabled, puts every system call
 * of every task on the traced slow path.
 */
SEC("fexit")
int BPF_PROG(tx_sys_shmctl, const struct pt_regs *regs, long ret)
{
	emit_shmctl(PT_REGS_PARM1_CORE_SYSCALL(regs),
		    PT_REGS_PARM2_CORE_SYSCALL(regs), ret);
	return 0;
}

SEC("ksyscall/shmctl")
int BPF_KSYSCALL(ks_shmctl, int shmid, int cmd)
{
	kp_keep(KP_SHMCTL, shmid, cmd, 0, 0, 0);
	if ((cmd & ~IPC_64) == IPC_RMID)
		ctx_set(CTX_RMID, true);
	return 0;
}

SEC("kretsyscall/shmctl")
int BPF_KRETPROBE(kr_shmctl, long ret)
{
	struct kp_args a;

	if (kp_take(KP_SHMCTL, &a))
		on_shmctl_exit((int)a.a[0], (int)a.a[1], ret);
	else
		ctx_set(CTX_RMID, false);
	return 0;
}

/* A pair of programs per caller that sets a destruction context. */
#define DESTROY_CONTEXT(fn, bit)					\
SEC("fentry/" #fn)							\
int BPF_PROG(fe_##fn)							\
{									\
	ctx_set(bit, true);						\
	return 0;							\
}									\
SEC("fexit/" #fn)							\
int BPF_PROG(fx_##fn)							\
{									\
	ctx_set(bit, false);						\
	return 0;							\
}									\
SEC("kprobe/" #fn)							\
int BPF_KPROBE(kp_##fn)							\
{									\
	ctx_set(bit, true);						\
	return 0;							\
}									\
SEC("kretprobe/" #fn)							\
int BPF_KRETPROBE(kr_##fn)						\
{									\
	ctx_set(bit, false);						\
	return 0;							\
}

DESTROY_CONTEXT(exit_shm, CTX_ORPHAN_EXIT)
DESTROY_CONTEXT(shm_destroy_orphaned, CTX_ORPHAN_SYSCTL)
DESTROY_CONTEXT(shm_exit_ns, CTX_NS_EXIT)

/* @hold: fentry mode, where do_shmat()'s exit tells the cause */
static __always_inline void on_shm_destroy(struct ipc_namespace *ns,
					   struct shmid_kernel *shp, bool hold)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 *bitsp = bpf_map_lookup_elem(&destroy_ctx, &pid_tgid);
	__u32 bits = bitsp ? *bitsp : 0, cause, zero = 0;
	struct shmat_call *shmat = bpf_map_lookup_elem(&shmat_calls, &pid_tgid);
	bool in_shmat = false;
	struct held_destroy *h;
	struct ipcw_event *e;

	if (bits & CTX_NS_EXIT)
		cause = IPCW_DESTROY_NS_EXIT;
	else if (bits & CTX_ORPHAN_SYSCTL)
		cause = IPCW_DESTROY_ORPHAN_SYSCTL;
	else if (bits & CTX_ORPHAN_EXIT)
		cause = IPCW_DESTROY_ORPHAN_EXIT;
	else if (bits & CTX_RMID)
		cause = IPCW_DESTROY_RMID;
	else if (!(details & DETAIL_DESTROY_CAUSE))
		cause = IPCW_DESTROY_UNEXPLAINED;	/* no context to tell */
	else if (BPF_CORE_READ(shp, shm_perm.mode) & SHM_DEST)
		cause = IPCW_DESTROY_LAST_DETACH;
	else
		cause = IPCW_DESTROY_FORCED_DETACH;
	/*
	 * do_shmat() freeing the segment it attaches, as it drops its
	 * temporary count: its mmap failed, or another thread unmapped the
	 * new mapping before shmat() returned
	 */
	if (cause == IPCW_DESTROY_LAST_DETACH ||
	    cause == IPCW_DESTROY_FORCED_DETACH)
		in_shmat = shmat && shmat->id == BPF_CORE_READ(shp, shm_perm.id);
	if (in_shmat && hold) {
		h = bpf_map_lookup_elem(&held_scratch, &zero);
		if (!h || !wanted(ns_inum(ns), false))
			return;
		event_header(&h->e, IPCW_SHM_DESTROY, ns_inum(ns));
		fill_destroy(&h->e, &shp->shm_perm,
			     BPF_CORE_READ(shp, shm_segsz),
			     BPF_CORE_READ(shp, shm_cprid, numbers[0].nr),
			     BPF_CORE_READ(shp, shm_ctim), cause);
		h->cause_if_ok = cause;
		keep(&held_destroys, &pid_tgid, h);
		return;
	}
	if (in_shmat)
		cause = IPCW_DESTROY_SHMAT_FAILED;	/* the likely one */

	e = event_start(IPCW_SHM_DESTROY, ns_inum(ns), false);
	if (!e)
		return;
	fill_destroy(e, &shp->shm_perm, BPF_CORE_READ(shp, shm_segsz),
		     BPF_CORE_READ(shp, shm_cprid, numbers[0].nr),
		     BPF_CORE_READ(shp, shm_ctim), cause);
	bpf_ringbuf_submit(e, 0);
}

SEC("fentry/shm_destroy")
int BPF_PROG(fe_shm_destroy, struct ipc_namespace *ns,
	     struct shmid_kernel *shp)
{
	on_shm_destroy(ns, shp, true);
	return 0;
}

SEC("kprobe/shm_destroy")
int BPF_KPROBE(kp_shm_destroy, struct ipc_namespace *ns,
	       struct shmid_kernel *shp)
{
	on_shm_destroy(ns, shp, false);
	return 0;
}

static __always_inline void on_semtimedop_enter(struct sembuf *sops,
						bool timeout)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep s = { .sops = sops, .timeout = timeout }, *prev;

	/*
	 * Still asleep by our account: the kretprobe of the last call was
	 * missed (more concurrent sleepers than its instances), and with
	 * it the wake-up.
	 */
	prev = bpf_map_lookup_elem(&sem_sleepers, &pid_tgid);
	if (prev && prev->blocked)
		count_lost();
	keep(&sem_sleepers, &pid_tgid, &s);
}

SEC("kprobe/__do_semtimedop")
int BPF_KPROBE(kp_do_semtimedop, int semid, struct sembuf *sops,
	       unsigned int nsops, const struct timespec64 *timeout,
	       struct ipc_namespace *ns)
{
	kp_keep(KP_SEMTIMEDOP, semid, (__u64)ns, 0, 0, 0);
	on_semtimedop_enter(sops, timeout != NULL);
	return 0;
}

/*
 * perform_atomic_semop() also runs for other tasks' queued operations
 * when a semop() wakes them: only our own array, the one passed to
 * __do_semtimedop(), is our own attempt.
 */
static __always_inline void on_atomic_semop_exit(struct sem_array *sma,
						 struct sem_queue *q, int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep *s = bpf_map_lookup_elem(&sem_sleepers, &pid_tgid);
	const struct sembuf *sops = BPF_CORE_READ(q, sops);
	const struct sembuf *blocking = BPF_CORE_READ(q, blocking);
	struct sembuf op = {};
	struct ipcw_event *e;

	if (ret != 1 || !s || s->sops != sops || s->blocked)
		return;
	bpf_probe_read_kernel(&op, sizeof(op), blocking);
	s->blocked = true;
	s->ts_ns = bpf_ktime_get_ns();
	s->sem_num = op.sem_num;
	s->sem_op = op.sem_op;

	e = event_start(IPCW_SEM_BLOCK, current_ipcns(), false);
	if (!e)
		return;
	e->sem_block.id = BPF_CORE_READ(sma, sem_perm.id);
	e->sem_block.nsops = BPF_CORE_READ(q, nsops);
	e->sem_block.index = sembuf_index(sops, blocking);
	e->sem_block.sem_num = op.sem_num;
	e->sem_block.sem_op = op.sem_op;
	e->sem_block.sem_flg = op.sem_flg;
	e->sem_block.zcnt = op.sem_op == 0;
	e->sem_block.timeout = s->timeout;
	bpf_ringbuf_submit(e, 0);
}

SEC("kprobe/perform_atomic_semop")
int BPF_KPROBE(kp_perform_atomic_semop, struct sem_array *sma,
	       struct sem_queue *q)
{
	kp_keep(KP_ATOMIC_SEMOP, (__u64)sma, (__u64)q, 0, 0, 0);
	return 0;
}

SEC("kretprobe/perform_atomic_semop")
int BPF_KRETPROBE(kr_perform_atomic_semop, int ret)
{
	struct kp_args a;

	if (kp_take(KP_ATOMIC_SEMOP, &a))
		on_atomic_semop_exit((void *)a.a[0], (void *)a.a[1], ret);
	return 0;
}

static __always_inline void on_semtimedop_exit(int semid,
					       struct ipc_namespace *ns,
					       long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep *s = bpf_map_lookup_elem(&sem_sleepers, &pid_tgid);

	if (!s)
		return;
	if (s->blocked)
		emit_sem_wake(s, semid, ns_inum(ns), ret, -1);
	bpf_map_delete_elem(&sem_sleepers, &pid_tgid);
}

SEC("kretprobe/__do_semtimedop")
int BPF_KRETPROBE(kr_do_semtimedop, long ret)
{
	struct kp_args a;

	if (kp_take(KP_SEMTIMEDOP, &a))
		on_semtimedop_exit((int)a.a[0], (void *)a.a[1], ret);
	return 0;
}

/*
 * ---- fentry mode: semop() seen where it sleeps, and only there --------
 *
 * Nothing is attached on semop()'s own path: a semop() that does not
 * block passes no program. Its only out-of-line call on the way to
 * sleep is schedule_hrtimeout_range(), which poll(), select() and
 * epoll_wait() call too; the programs there first compare the current
 * task's system call number and leave at once for anything else.
 *
 * At the entry of that sleep the program finds the set from the system
 * call's arguments (the IPC namespace's idr, the id's index, the id and
 * its sequence checked) and our own struct sem_queue on the lists it can
 * be on (sleeper == current; walked from the tail, list_add_tail() put
 * it there), and reads what blocked from the queue the kernel keeps, not
 * from the caller's memory. The result is the status the waker stores
 * in that queue, read at the exit of the sleep. A waker that stores it
 * between the sleeper's wake-up and its re-check under the lock is seen
 * by the program on wake_q_add_safe(), which every semaphore waker calls
 * right after the store; the -EINTR of a signal is told at the signal's
 * delivery (signal_deliver), after the re-check. What cannot be decided
 * exactly is counted in lost_events, never reported.
 *
 * Per-task state is in task local storage: a word of sequence and state
 * changed with compare-and-swap only, as the waker runs on another CPU.
 */
#if defined(__TARGET_ARCH_x86)
#define NR_SEMOP		65
#define NR_SEMTIMEDOP		220
#define X32_SYSCALL_BIT		0x40000000UL
#define TS_COMPAT		0x0002
#define TIF_SIGPENDING		2
#define TIF_NOTIFY_SIGNAL	17
#elif defined(__TARGET_ARCH_arm64)
/* asm-generic/unistd.h: __NR_semtimedop 192, __NR_semop 193 */
#define NR_SEMOP		193
#define NR_SEMTIMEDOP		192
#define TIF_SIGPENDING		0
#define TIF_NOTIFY_SIGNAL	6
#endif
#define EINTR			4
#define EAGAIN			11
#define ENOSYS			38
#define SEM_LIST_WALK		32	/* queued after us, at most */
#define IDR_LEVELS		6	/* 6 bits a level covers 24-bit indexes */

enum sleep_state {
	SLEEP_IDLE,		/* no sleep of ours in progress */
	SLEEP_ASLEEP,		/* sem_block reported */
	SLEEP_WAKER,		/* asleep, and a waker stored a result */
	SLEEP_WOKEN,		/* woken without a result: signal, spurious */
	SLEEP_HELD,		/* timed out: its -EAGAIN in held_wakes */
	SLEEP_INTR,		/* woken without a result, a signal pending:
				 * -EINTR unless a waker stores one first */
};

#define SLEEP_STATE(w)		((__u32)((w) & 0xf))
#define SLEEP_SEQ(w)		((w) >> 4)
#define SLEEP_WORD(seq, st)	(((seq) << 4) | (st))

struct sem_sleeper {
	__u64 word;		/* sequence << 4 | enum sleep_state */
	__u64 ts_ns;
	__u64 q;		/* our struct sem_queue, on our stack */
	__s32 semid;
	__u32 ipcns;
	__u16 sem_num;
	__s16 sem_op;
	__u32 nsops;
	__u64 woke_ns;		/* the last sleep's end */
	__u64 nvcsw;		/* voluntary switches at that end */
	__u64 sma;		/* the set, as a number */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sem_sleeper);
} sem_tasks SEC(".maps");

struct semop_call {
	__u64 sops;		/* the caller's array (user memory) */
	__s32 semid;
	__u32 nsops;
};

/* Whether @task is in semop() or semtimedop() (native ABI), and its
 * arguments. */
static __always_inline bool in_semop(struct task_struct *task,
				     struct semop_call *c)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	unsigned long nr = BPF_CORE_READ(regs, orig_ax) & ~X32_SYSCALL_BIT;

	if (nr != NR_SEMOP && nr != NR_SEMTIMEDOP)
		return false;
	/* an ia32 task's numbers are another table's */
	if (BPF_CORE_READ(task, thread_info.status) & TS_COMPAT)
		return false;
	c->semid = (int)BPF_CORE_READ(regs, di);
	c->sops = BPF_CORE_READ(regs, si);
	c->nsops = (__u32)BPF_CORE_READ(regs, dx);
	return true;
#elif defined(__TARGET_ARCH_arm64)
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	int nr = BPF_CORE_READ(regs, syscallno);

	if (nr != NR_SEMOP && nr != NR_SEMTIMEDOP)
		return false;
	c->semid = (int)BPF_CORE_READ(regs, orig_x0);
	c->sops = BPF_CORE_READ(regs, regs[1]);
	c->nsops = (__u32)BPF_CORE_READ(regs, regs[2]);
	return true;
#else
	return false;
#endif
}

/* signal_pending(): what ends the sleep loop of __do_semtimedop(). */
static __always_inline bool signal_pending_now(struct task_struct *task)
{
	unsigned long flags = BPF_CORE_READ(task, thread_info.flags);

	return flags & ((1UL << TIF_SIGPENDING) | (1UL << TIF_NOTIFY_SIGNAL));
}

/*
 * The value semop() or semtimedop() of @task returned, once it has: x86
 * keeps it in ax, -ENOSYS until then, with orig_ax the call's number.
 * arm64 forgets the number before a signal's delivery: unknown there.
 */
static __always_inline bool semop_returned(struct task_struct *task,
					   long *ret)
{
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	unsigned long nr = BPF_CORE_READ(regs, orig_ax) & ~X32_SYSCALL_BIT;

	if (nr != NR_SEMOP && nr != NR_SEMTIMEDOP)
		return false;
	*ret = (long)BPF_CORE_READ(regs, ax);
	return *ret != -ENOSYS;
#else
	return false;
#endif
}

/* idr_find() on an xarray: the entry at @index, or 0. */
static __always_inline __u64 idr_entry(__u64 entry, __u64 index)
{
	__u64 chunk = bpf_core_field_size(struct xa_node, slots) / 8;
	__u32 slots = bpf_core_field_offset(struct xa_node, slots);
	int level;

	for (level = 0; level < IDR_LEVELS; level++) {
		struct xa_node *node;
		__u64 off;
		__u8 shift;

		/* not internal: an entry, which a lone head is for index 0 */
		if ((entry & 3) != 2)
			return level == 0 && index ? 0 : entry;
		if (entry <= 4096)	/* retry, zero or sibling entry */
			return 0;
		node = (void *)(entry - 2);
		shift = BPF_CORE_READ(node, shift);
		if (shift > 63)
			return 0;
		off = index >> shift;
		if (level == 0 && off >= chunk)
			return 0;
		off &= chunk - 1;
		if (bpf_probe_read_kernel(&entry, sizeof(entry),
					  (void *)node + slots + off * 8))
			return 0;
	}
	return 0;
}

/* The set @semid of @ns, found as ipc_obtain_object_check() does. */
static __always_inline __u64 sem_array_of(struct ipc_namespace *ns, int semid)
{
	__u64 head = (__u64)BPF_CORE_READ(ns, ids[0].ipcs_idr.idr_rt.xa_head);
	int i;

	/* the index is 15 bits, or 24 with ipcmni_extend */
#pragma clang loop unroll(full)
	for (i = 0; i < 2; i++) {
		__u64 mask = i ? (1UL << 24) - 1 : (1UL << 15) - 1;
		struct kern_ipc_perm *perm;

		perm = (void *)idr_entry(head, (__u64)semid & mask);
		if (perm && BPF_CORE_READ(perm, id) == semid &&
		    !BPF_CORE_READ(perm, deleted))
			return (__u64)to_sem_array(perm);
	}
	return 0;
}

/* Our queue on the list at @head, walked from its tail, or 0. */
static __always_inline __u64 our_queue_on(__u64 head, __u64 task)
{
	__u32 prev = bpf_core_field_offset(struct list_head, prev);
	__u32 list = bpf_core_field_offset(struct sem_queue, list);
	__u32 sleeper = bpf_core_field_offset(struct sem_queue, sleeper);
	__u64 pos = 0, who;
	int i;

	if (bpf_probe_read_kernel(&pos, sizeof(pos), (void *)head + prev))
		return 0;
	for (i = 0; i < SEM_LIST_WALK; i++) {
		if (!pos || pos == head)
			return 0;
		if (!bpf_probe_read_kernel(&who, sizeof(who),
					   (void *)pos - list + sleeper) &&
		    who == task)
			return pos - list;
		if (bpf_probe_read_kernel(&pos, sizeof(pos), (void *)pos + prev))
			return 0;
	}
	return 0;
}

/*
 * Where __do_semtimedop() queued us: a single operation on its
 * semaphore's lists, or the set's when complex operations are pending
 * (merge_queues() moves it there later too); complex operations on the
 * set's.
 */
static __always_inline __u64 our_queue(__u64 sma, const struct semop_call *c,
				       __u64 task)
{
	__u64 alter = sma + bpf_core_field_offset(struct sem_array,
						  pending_alter);
	__u64 cnst = sma + bpf_core_field_offset(struct sem_array,
						 pending_const);
	__u64 q, sem;
	struct sembuf op;

	if (c->nsops > 1) {
		q = our_queue_on(alter, task);
		return q ? q : our_queue_on(cnst, task);
	}
	/* the number from the caller's array: a queue found by it is ours,
	 * and its values are read from the kernel's copy */
	if (bpf_probe_read_user(&op, sizeof(op), (void *)c->sops) ||
	    op.sem_num >= BPF_CORE_READ((struct sem_array *)sma, sem_nsems))
		return 0;
	sem = sma + bpf_core_field_offset(struct sem_array, sems) +
	      (__u64)op.sem_num * bpf_core_type_size(struct sem);
	q = our_queue_on(sem + bpf_core_field_offset(struct sem, pending_alter),
			 task);
	if (!q)
		q = our_queue_on(sem + bpf_core_field_offset(struct sem,
							     pending_const),
				 task);
	return q ? q : our_queue_on(alter, task);
}

static __always_inline bool sleep_cas(struct sem_sleeper *s, __u64 old,
				      __u64 new)
{
	return __sync_val_compare_and_swap(&s->word, old, new) == old;
}

/* The semaphore whose lock a waker of a single operation may hold. */
static __always_inline int sleep_lock(const struct sem_sleeper *s)
{
	return s->nsops == 1 ? s->sem_num : -1;
}

/*
 * Whether no waker can still be between its store into a queue of ours
 * and its wake_q_add_safe(), for a sleeper past its re-check (its queue
 * is off the lists, so no new waker finds it): a waker does both under
 * the set's lock or, for a single operation, that semaphore's, so both
 * free means done. False when the lock cannot be read (PREEMPT_RT's
 * spinlock_t is no qspinlock): undecidable, counted as lost.
 */
static __always_inline bool no_waker_left(__u64 sma, int sem)
{
	struct sem_array *a = (void *)sma;
	struct sem *x;

	if (!bpf_core_field_exists(struct spinlock, rlock))
		return false;
	if (BPF_CORE_READ(a, sem_perm.lock.rlock.raw_lock.val.counter))
		return false;
	if (sem < 0)
		return true;
	x = (void *)(sma + bpf_core_field_offset(struct sem_array, sems) +
		     (__u64)(__u16)sem * bpf_core_type_size(struct sem));
	return !BPF_CORE_READ(x, lock.rlock.raw_lock.val.counter);
}

/*
 * A timed-out sleep's -EAGAIN, held until the sleeper is past its
 * re-check under the lock: a waker storing a result before that makes
 * the result its own. Whoever decides first swaps `decided`: a waker
 * (lost: the sleeper got a result no program of ours sees), the
 * sleeper's next sleep, signal or exit, or the timer, which releases it
 * once the task has left the system call, slept again or is not
 * running (between the wake-up and the re-check it only runs or spins).
 */
#define HOLD_NS			1000000	/* the timer's period */
#define CLOCK_MONOTONIC		1

struct held_wake {
	struct bpf_timer timer;
	struct ipcw_event e;	/* the sem_wake, the sleeper's header */
	__u64 task;		/* the sleeper, as a number */
	__u64 regs;		/* its system call's registers, likewise */
	__u64 nvcsw;		/* its voluntary switches when it woke */
	__u64 nr;		/* its system call */
	__u64 arg0;		/* arm64: its first argument (orig_x0) */
	__u64 sma;		/* its set, as a number */
	__u64 decided;		/* 64 bits: BPF's compare-and-swap */
	__u32 wanted;		/* by the filters, judged in its context */
	__s32 lock_sem;		/* sleep_lock() */
	__u32 tries;		/* timer periods with a lock busy */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);		/* tid */
	__type(value, struct held_wake);
} held_wakes SEC(".maps");

/* zeroes of a held_wake's size, to insert one (no timer in a per-CPU
 * map) */
struct held_wake_zero {
	char bytes[sizeof(struct held_wake)];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct held_wake_zero);
} held_wake_zero SEC(".maps");

static __always_inline void release_held_wake(struct held_wake *h)
{
	if (!__sync_bool_compare_and_swap(&h->decided, 0, 1))
		return;
	if (h->wanted && bpf_ringbuf_output(&events, &h->e, sizeof(h->e), 0))
		count_lost();
}

/* A held -EAGAIN that is not the call's result: counted, not sent. */
static __always_inline void drop_held_wake(struct held_wake *h)
{
	if (__sync_bool_compare_and_swap(&h->decided, 0, 1))
		count_lost();
}

enum held_verdict {
	HELD_WAIT,		/* the sleeper may still be before its re-check */
	HELD_RELEASE,		/* past it: the -EAGAIN stands */
	HELD_DROP,		/* past it, a waker perhaps not: undecidable */
};

#define HOLD_TRIES		20	/* periods a lock may stay busy */

/* Whether the sleeper is past its re-check, seen from elsewhere. */
static __always_inline bool held_past(const struct held_wake *h)
{
	struct task_struct *t = (void *)h->task;
	struct pt_regs *regs = (void *)h->regs;

	if (BPF_CORE_READ(t, __state) != 0 ||	/* not TASK_RUNNING */
	    BPF_CORE_READ(t, nvcsw) != h->nvcsw)
		return true;
	/* returned, or in another system call */
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax) != h->nr ||
	       (long)BPF_CORE_READ(regs, ax) != -ENOSYS;
#elif defined(__TARGET_ARCH_arm64)
	/* x0 holds the first argument until the return overwrites it */
	return (__u64)BPF_CORE_READ(regs, syscallno) != h->nr ||
	       BPF_CORE_READ(regs, regs[0]) != h->arg0;
#else
	return false;
#endif
}

/*
 * Past the re-check and no waker left: the -EAGAIN is the result. A
 * waker that stored one first still holds the lock it stored under
 * until its program has dropped the record.
 */
static __always_inline enum held_verdict held_verdict(struct held_wake *h)
{
	if (!held_past(h))
		return HELD_WAIT;
	if (no_waker_left(h->sma, h->lock_sem))
		return HELD_RELEASE;
	return ++h->tries < HOLD_TRIES ? HELD_WAIT : HELD_DROP;
}

static int held_wake_fire(void *map, __u32 *key, struct held_wake *h)
{
	enum held_verdict v = h->decided ? HELD_RELEASE : held_verdict(h);

	if (v == HELD_WAIT) {
		bpf_timer_start(&h->timer, HOLD_NS, 0);
		return 0;
	}
	if (v == HELD_DROP)
		drop_held_wake(h);
	else
		release_held_wake(h);
	bpf_map_delete_elem(map, key);
	return 0;
}

/* The sleeper decides its own held -EAGAIN: it is past the re-check,
 * and @stands unless its call is seen returning something else. */
static __always_inline void decide_own_held(bool stands)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct held_wake *h = bpf_map_lookup_elem(&held_wakes, &tid);

	if (!h)
		return;
	if (stands)
		release_held_wake(h);
	else
		drop_held_wake(h);
	bpf_map_delete_elem(&held_wakes, &tid);
}

/* Hold the -EAGAIN of a timeout; false if it cannot be held. */
static __always_inline bool hold_timeout(struct task_struct *task,
					 const struct sem_sleeper *s)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct held_wake_zero *z = bpf_map_lookup_elem(&held_wake_zero, &zero);
	struct held_wake *h;

	if (!z)
		return false;
	/* a finished one the timer has not deleted yet */
	bpf_map_delete_elem(&held_wakes, &tid);
	if (bpf_map_update_elem(&held_wakes, &tid, z, BPF_NOEXIST))
		return false;
	h = bpf_map_lookup_elem(&held_wakes, &tid);
	if (!h)
		return false;
	event_header(&h->e, IPCW_SEM_WAKE, s->ipcns);
	h->e.sem_wake.id = s->semid;
	h->e.sem_wake.err = EAGAIN;
	h->e.sem_wake.timed_out = 1;
	h->e.sem_wake.timed_out_known = 1;
	h->e.sem_wake.slept_ns = h->e.ts_ns - s->ts_ns;
	h->e.sem_wake.sem_num = s->sem_num;
	h->e.sem_wake.sem_op = s->sem_op;
	h->wanted = wanted(s->ipcns, true);
	h->task = (__u64)task;
	h->regs = bpf_task_pt_regs(task);
	h->nvcsw = BPF_CORE_READ(task, nvcsw);
	h->sma = s->sma;
	h->lock_sem = sleep_lock(s);
	{
		struct pt_regs *regs = (void *)h->regs;

#if defined(__TARGET_ARCH_x86)
		h->nr = BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
		h->nr = BPF_CORE_READ(regs, syscallno);
		h->arg0 = BPF_CORE_READ(regs, orig_x0);
#endif
	}
	if (bpf_timer_init(&h->timer, &held_wakes, CLOCK_MONOTONIC) ||
	    bpf_timer_set_callback(&h->timer, held_wake_fire) ||
	    bpf_timer_start(&h->timer, HOLD_NS, 0)) {
		bpf_map_delete_elem(&held_wakes, &tid);
		return false;
	}
	return true;
}

/* The sleep's sem_wake; an -EINTR told later is dated at its end. */
static __always_inline void sleeper_wake(const struct sem_sleeper *s, int err,
					 int timed_out)
{
	struct sem_sleep w = { .ts_ns = s->ts_ns, .sem_num = s->sem_num,
			       .sem_op = s->sem_op };

	if (err == -EINTR)
		w.ts_ns += bpf_ktime_get_ns() - s->woke_ns;
	emit_sem_wake(&w, s->semid, s->ipcns, err, timed_out);
}

SEC("fentry/schedule_hrtimeout_range")
int BPF_PROG(fe_sem_sleep, ktime_t *expires, __u64 delta, int how)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ipc_namespace *ns;
	struct semop_call c;
	struct sem_sleeper *s;
	struct sembuf op = {};
	struct ipcw_event *e;
	__u64 w, sma, q, sops, blocking;
	__u32 st;

	if (!in_semop(task, &c))
		return 0;
	s = bpf_task_storage_get(&sem_tasks, task, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		count_lost();
		return 0;
	}
	w = s->word;
	st = SLEEP_STATE(w);
	if (st == SLEEP_HELD)
		decide_own_held(no_waker_left(s->sma, sleep_lock(s)));
	ns = BPF_CORE_READ(task, nsproxy, ipc_ns);
	sma = sem_array_of(ns, c.semid);
	q = sma ? our_queue(sma, &c, (__u64)task) : 0;
	/*
	 * The loop sleeps again on the same queue (a spurious wake-up, no
	 * signal pending): straight from the re-check, so no voluntary
	 * switch since. No new block.
	 */
	if (st == SLEEP_WOKEN && s->semid == c.semid &&
	    s->nvcsw == BPF_CORE_READ(task, nvcsw) && (!q || s->q == q)) {
		/* its queue not found: the call cannot be followed */
		if (!sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w),
					       q ? SLEEP_ASLEEP : SLEEP_IDLE)) ||
		    !q)
			count_lost();
		return 0;
	}
	/*
	 * Otherwise the call before returned -EINTR and no delivery of a
	 * signal to this thread followed (a group stop, the freezer, task
	 * work, a signal another thread took), unless a waker that stored
	 * its result first still holds its lock.
	 */
	if (st == SLEEP_WOKEN || st == SLEEP_INTR) {
		bool done = no_waker_left(s->sma, sleep_lock(s));

		if (sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), SLEEP_IDLE))) {
			if (done)
				sleeper_wake(s, -EINTR, 0);
			else
				count_lost();
		}
	}
	w = s->word;
	st = SLEEP_STATE(w);
	/* a sleep whose end nothing saw (its fexit not attached yet) */
	if (st == SLEEP_ASLEEP || st == SLEEP_WAKER)
		count_lost();
	if (!q || BPF_CORE_READ((struct sem_queue *)q, nsops) != c.nsops) {
		/* not queued any more (woken before it slept), or not found */
		sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w) + 1, SLEEP_IDLE));
		count_lost();
		return 0;
	}
	sops = (__u64)BPF_CORE_READ((struct sem_queue *)q, sops);
	blocking = (__u64)BPF_CORE_READ((struct sem_queue *)q, blocking);
	bpf_probe_read_kernel(&op, sizeof(op), (void *)blocking);
	s->ts_ns = bpf_ktime_get_ns();
	s->q = q;
	s->sma = sma;
	s->nsops = c.nsops;
	s->semid = c.semid;
	s->ipcns = ns_inum(ns);
	s->sem_num = op.sem_num;
	s->sem_op = op.sem_op;
	if (!sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w) + 1, SLEEP_ASLEEP))) {
		count_lost();
		return 0;
	}

	e = event_start(IPCW_SEM_BLOCK, s->ipcns, false);
	if (!e)
		return 0;
	e->sem_block.id = c.semid;
	e->sem_block.nsops = c.nsops;
	e->sem_block.index = sembuf_index((void *)sops, (void *)blocking);
	e->sem_block.sem_num = op.sem_num;
	e->sem_block.sem_op = op.sem_op;
	e->sem_block.sem_flg = op.sem_flg;
	e->sem_block.zcnt = op.sem_op == 0;
	e->sem_block.timeout = expires != NULL;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * The sleep's end. A status other than -EINTR is the result (a waker
 * stores it once, having unlinked the queue); -EINTR with the timer
 * expired is the kernel's -EAGAIN; -EINTR otherwise is a signal or a
 * spurious wake-up, told apart after the re-check.
 */
SEC("fexit/schedule_hrtimeout_range")
int BPF_PROG(fx_sem_sleep, ktime_t *expires, __u64 delta, int how, int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct semop_call c;
	struct sem_sleeper *s;
	__u32 st, next = SLEEP_IDLE;
	struct sem_queue *q;
	int status = 0, i;
	bool pending;
	__u64 w = 0;

	if (!in_semop(task, &c))
		return 0;
	s = bpf_task_storage_get(&sem_tasks, task, 0, 0);
	if (!s)
		return 0;
	s->woke_ns = bpf_ktime_get_ns();
	s->nvcsw = BPF_CORE_READ(task, nvcsw);
	pending = signal_pending_now(task);
	/* twice: a waker may mark the word between our read and swap */
	for (i = 0; i < 2; i++) {
		w = s->word;
		st = SLEEP_STATE(w);
		if (st != SLEEP_ASLEEP && st != SLEEP_WAKER)
			return 0;
		q = (struct sem_queue *)s->q;	/* a local: CO-RE reads
						 * relocate kernel types only */
		status = BPF_CORE_READ(q, status);
		if (status != -EINTR)
			next = SLEEP_IDLE;
		else if (ret == 0)
			next = SLEEP_HELD;
		else if (pending)	/* stays pending to the loop's test */
			next = SLEEP_INTR;
		else
			next = SLEEP_WOKEN;
		if (sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), next)))
			break;
	}
	if (i == 2) {
		count_lost();
		return 0;
	}
	if (next == SLEEP_IDLE) {
		sleeper_wake(s, status, 0);
	} else if (next == SLEEP_HELD) {
		if (!hold_timeout(task, s)) {
			if (sleep_cas(s, SLEEP_WORD(SLEEP_SEQ(w), next),
				      SLEEP_WORD(SLEEP_SEQ(w), SLEEP_IDLE)))
				count_lost();
		} else if (s->word != SLEEP_WORD(SLEEP_SEQ(w), SLEEP_HELD)) {
			/*
			 * A waker stored a result between our swap and the
			 * record's insertion: it counted the loss, the held
			 * -EAGAIN is not the result (the timer deletes it).
			 */
			__u32 tid = (__u32)bpf_get_current_pid_tgid();
			struct held_wake *h = bpf_map_lookup_elem(&held_wakes,
								  &tid);

			if (h)
				__sync_val_compare_and_swap(&h->decided, 0, 1);
		}
	}
	return 0;
}

/*
 * A waker: every semaphore waker stores the result, then calls
 * wake_q_add_safe() for the sleeper (wake_up_sem_queue_prepare()), under
 * the semaphore's lock. Other wakers (futexes, rwsems) call it too, for
 * tasks that have no storage of ours or are not asleep by it.
 */
SEC("fentry/wake_q_add_safe")
int BPF_PROG(fe_sem_waker, struct wake_q_head *head, struct task_struct *task)
{
	struct sem_sleeper *s = bpf_task_storage_get(&sem_tasks, task, 0, 0);
	__u64 w, q, who = 0;
	int status = -EINTR;
	__u32 st;

	if (!s)
		return 0;
	w = s->word;
	st = SLEEP_STATE(w);
	if (st == SLEEP_ASLEEP) {
		/* the sleeper's exit, if it read the status before our
		 * store, finds the word changed and reads it again */
		if (sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), SLEEP_WAKER)))
			return 0;
		w = s->word;
		st = SLEEP_STATE(w);
	}
	if (st != SLEEP_WOKEN && st != SLEEP_INTR && st != SLEEP_HELD)
		return 0;
	/*
	 * The sleeper read -EINTR before this store and will find it at
	 * its re-check: its result is ours, after no program of the
	 * sleeper's (woken: nothing reported; timed out: the -EAGAIN held
	 * is not the result). Either is lost.
	 */
	q = s->q;
	bpf_probe_read_kernel(&who, sizeof(who),
			      (void *)q + bpf_core_field_offset(struct sem_queue,
								sleeper));
	bpf_probe_read_kernel(&status, sizeof(status),
			      (void *)q + bpf_core_field_offset(struct sem_queue,
								status));
	if (who != (__u64)task || status == -EINTR ||
	    !sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), SLEEP_IDLE)))
		return 0;
	if (st == SLEEP_HELD) {
		__u32 tid = BPF_CORE_READ(task, pid);
		struct held_wake *h = bpf_map_lookup_elem(&held_wakes, &tid);

		/*
		 * Not inserted yet: the sleeper finds the word changed and
		 * withdraws it. Decided before: released already (the
		 * sleeper was past its re-check), nothing of ours is lost.
		 */
		if (h && !__sync_bool_compare_and_swap(&h->decided, 0, 1))
			return 0;
	}
	count_lost();
	return 0;
}

/* A signal delivered after a wake-up without a result: -EINTR. */
SEC("tp_btf/signal_deliver")
int BPF_PROG(tp_sem_signal, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct sem_sleeper *s = bpf_task_storage_get(&sem_tasks, task, 0, 0);
	long ret = 0;
	bool known;
	__u64 w;
	__u32 st;

	if (!s)
		return 0;
	/* delivered at semop()'s return: what it returned decides */
	known = semop_returned(task, &ret);
	w = s->word;
	st = SLEEP_STATE(w);
	/* a timeout wins over a signal at the re-check */
	if (st == SLEEP_HELD &&
	    sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), SLEEP_IDLE))) {
		decide_own_held(known ? ret == -EAGAIN :
				no_waker_left(s->sma, sleep_lock(s)));
		return 0;
	}
	if (st != SLEEP_WOKEN && st != SLEEP_INTR)
		return 0;
	/* a waker's result read before its program ran (it finds idle) */
	if (!known)
		ret = no_waker_left(s->sma, sleep_lock(s)) ? -EINTR : 0;
	if (!sleep_cas(s, w, SLEEP_WORD(SLEEP_SEQ(w), SLEEP_IDLE)))
		return 0;
	if (ret == -EINTR)
		sleeper_wake(s, -EINTR, 0);
	else
		count_lost();
	return 0;
}

/*
 * semget(): the count check of ksys_semget(), then newary() or
 * sem_more_checks(), per thread. The limits are read on entry to the
 * function that compares them; a reason whose errno is not the one
 * returned (a sysctl write in between) is left unexplained. The count
 * check is seen from its callers: the system call of the architecture
 * (ksys_semget() is inlined into it), its 32-bit x86 one, and the
 * out-of-line ksys_semget() that ipc(2) and compat ipc(2) call. Where
 * two of them nest, the inner one reports and the outer finds nothing.
 */
enum newary_stage {
	NEWARY_NONE,		/* newary() not entered */
	NEWARY_ALLOC,		/* before security_sem_alloc() returned */
	NEWARY_LSM_DENIED,
	NEWARY_SECURED,		/* LSM passed: only the id is left */
};

struct semget_call {
	struct sem_limits lim;
	__u32 stage;
	bool reported;		/* by newary() or sem_more_checks() */
	/* made by a caller of the count check, whose exit deletes it;
	 * else newary()'s exit does */
	bool from_syscall;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct semget_call);
} semget_calls SEC(".maps");

static __always_inline void on_semget_enter(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call call = { .from_syscall = true };

	read_sem_limits(BPF_CORE_READ(task, nsproxy, ipc_ns), &call.lim);
	keep(&semget_calls, &pid_tgid, &call);
}

/* What newary() and sem_more_checks() did not report: the count check. */
static __always_inline void on_semget_exit(key_t key, int nsems, int semflg,
					   long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call *call = bpf_map_lookup_elem(&semget_calls,
						       &pid_tgid);
	__u32 reason;

	if (!call)
		return;
	/*
	 * Past the two reported ones, EINVAL is the count check's, or the
	 * key lookup's (a security module's sem_associate hook), which
	 * tracepoint mode does not report either: only a count the check
	 * refuses is reported.
	 */
	if (!call->reported && ret == -EINVAL &&
	    (nsems < 0 || nsems > call->lim.semmsl)) {
		reason = nsems < 0 ? IPCW_SEM_CREATE_BAD_NSEMS :
				     IPCW_SEM_CREATE_OVER_SEMMSL;
		emit_sem_create(current_ipcns(), &call->lim, key, nsems,
				semflg, ret, reason, 0);
	}
	bpf_map_delete_elem(&semget_calls, &pid_tgid);
}

/* the wrapper of the running architecture, set by user space */
SEC("fentry")
int BPF_PROG(fe_sys_semget, const struct pt_regs *regs)
{
	on_semget_enter();
	return 0;
}

SEC("fexit")
int BPF_PROG(fx_sys_semget, const struct pt_regs *regs, long ret)
{
	on_semget_exit(PT_REGS_PARM1_CORE_SYSCALL(regs),
		       PT_REGS_PARM2_CORE_SYSCALL(regs),
		       PT_REGS_PARM3_CORE_SYSCALL(regs), ret);
	return 0;
}

/* ipc(2) and compat ipc(2), where ksys_semget() is out of line */
SEC("fentry/ksys_semget")
int BPF_PROG(fe_ksys_semget, key_t key, int nsems, int semflg)
{
	on_semget_enter();
	return 0;
}

SEC("fexit/ksys_semget")
int BPF_PROG(fx_ksys_semget, key_t key, int nsems, int semflg, long ret)
{
	on_semget_exit(key, nsems, semflg, ret);
	return 0;
}

#if defined(__TARGET_ARCH_x86)
/* 32-bit tasks on x86_64: the ia32 ABI's registers, bx, cx, dx */
SEC("fentry/__ia32_sys_semget")
int BPF_PROG(fe_ia32_sys_semget, const struct pt_regs *regs)
{
	on_semget_enter();
	return 0;
}

SEC("fexit/__ia32_sys_semget")
int BPF_PROG(fx_ia32_sys_semget, const struct pt_regs *regs, long ret)
{
	on_semget_exit((key_t)BPF_CORE_READ(regs, bx),
		       (int)BPF_CORE_READ(regs, cx),
		       (int)BPF_CORE_READ(regs, dx), ret);
	return 0;
}

SEC("kprobe/__ia32_sys_semget")
int BPF_KPROBE(kp_ia32_sys_semget, const struct pt_regs *regs)
{
	kp_keep(KP_SEMGET, (__u32)BPF_CORE_READ(regs, bx),
		(__u32)BPF_CORE_READ(regs, cx),
		(__u32)BPF_CORE_READ(regs, dx), 0, 0);
	on_semget_enter();
	return 0;
}

SEC("kretprobe/__ia32_sys_semget")
int BPF_KRETPROBE(kr_ia32_sys_semget, long ret)
{
	struct kp_args a;

	if (kp_take(KP_SEMGET, &a))
		on_semget_exit((key_t)a.a[0], (int)a.a[1], (int)a.a[2], ret);
	return 0;
}
#endif

SEC("ksyscall/semget")
int BPF_KSYSCALL(ks_semget, key_t key, int nsems, int semflg)
{
	kp_keep(KP_SEMGET, key, nsems, semflg, 0, 0);
	on_semget_enter();
	return 0;
}

SEC("kretsyscall/semget")
int BPF_KRETPROBE(kr_semget, long ret)
{
	struct kp_args a;

	if (kp_take(KP_SEMGET, &a))
		on_semget_exit((key_t)a.a[0], (int)a.a[1], (int)a.a[2], ret);
	return 0;
}

SEC("kprobe/ksys_semget")
int BPF_KPROBE(kp_ksys_semget, key_t key, int nsems, int semflg)
{
	kp_keep(KP_SEMGET, key, nsems, semflg, 0, 0);
	on_semget_enter();
	return 0;
}

SEC("kretprobe/ksys_semget")
int BPF_KRETPROBE(kr_ksys_semget, long ret)
{
	struct kp_args a;

	if (kp_take(KP_SEMGET, &a))
		on_semget_exit((key_t)a.a[0], (int)a.a[1], (int)a.a[2], ret);
	return 0;
}

static __always_inline void on_newary_enter(struct ipc_namespace *ns)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call *caller = bpf_map_lookup_elem(&semget_calls,
							 &pid_tgid);
	struct semget_call call = { .stage = NEWARY_ALLOC };

	/* whoever made the entry deletes it */
	call.from_syscall = caller && caller->from_syscall;
	/* newary() reads the limits itself, under the ids' lock */
	read_sem_limits(ns, &call.lim);
	keep(&semget_calls, &pid_tgid, &call);
}

SEC("fentry/newary")
int BPF_PROG(fe_newary, struct ipc_namespace *ns, struct ipc_params *params)
{
	on_newary_enter(ns);
	return 0;
}

SEC("kprobe/newary")
int BPF_KPROBE(kp_newary, struct ipc_namespace *ns, struct ipc_params *params)
{
	kp_keep(KP_NEWARY, (__u64)ns, (__u64)params, 0, 0, 0);
	on_newary_enter(ns);
	return 0;
}

static __always_inline void on_security_sem_alloc_exit(int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call *call = bpf_map_lookup_elem(&semget_calls,
						       &pid_tgid);

	if (call && call->stage == NEWARY_ALLOC)
		call->stage = ret ? NEWARY_LSM_DENIED : NEWARY_SECURED;
}

SEC("fexit/security_sem_alloc")
int BPF_PROG(fx_security_sem_alloc, struct kern_ipc_perm *perm, int ret)
{
	on_security_sem_alloc_exit(ret);
	return 0;
}

SEC("kretprobe/security_sem_alloc")
int BPF_KRETPROBE(kr_security_sem_alloc, int ret)
{
	on_security_sem_alloc_exit(ret);
	return 0;
}

/* newary()'s checks, in its order, for the reason of a failure. */
static __always_inline __u32 newary_reason(const struct semget_call *call,
					   int nsems, int ret)
{
	bool stage = details & DETAIL_SEM_STAGE;

	if (ret >= 0)
		return IPCW_SEM_CREATE_OK;
	if (!nsems)
		return ret == -EINVAL ? IPCW_SEM_CREATE_NO_NSEMS :
					IPCW_SEM_CREATE_UNEXPLAINED;
	/*
	 * Both over_semmns and no_ids are ENOSPC: where the stage is known
	 * it tells them apart (security_sem_alloc() runs past the SEMMNS
	 * check), not limits read before newary() read them.
	 */
	if (stage && call->stage == NEWARY_LSM_DENIED)
		/* security_sem_alloc() allocates the modules' blob first */
		return ret == -ENOMEM ? IPCW_SEM_CREATE_NOMEM :
					IPCW_SEM_CREATE_LSM_DENIED;
	if (stage && call->stage == NEWARY_SECURED)
		return ret == -ENOSPC ? IPCW_SEM_CREATE_NO_IDS :
					IPCW_SEM_CREATE_NOMEM;
	if (stage && ret == -ENOSPC)
		return IPCW_SEM_CREATE_OVER_SEMMNS;
	/* the kernel's sum, which wraps (-fno-strict-overflow) */
	if ((int)((__u32)call->lim.used_sems + (__u32)nsems) >
	    call->lim.semmns)
		return ret == -ENOSPC ? IPCW_SEM_CREATE_OVER_SEMMNS :
					IPCW_SEM_CREATE_UNEXPLAINED;
	/* before security_sem_alloc(), past the limits: sem_alloc() */
	return stage && ret == -ENOMEM ? IPCW_SEM_CREATE_NOMEM :
					 IPCW_SEM_CREATE_UNEXPLAINED;
}

static __always_inline void on_newary_exit(struct ipc_namespace *ns,
					   struct ipc_params *params, int ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call *call = bpf_map_lookup_elem(&semget_calls,
						       &pid_tgid);
	int nsems = BPF_CORE_READ(params, u.nsems);

	if (!call || call->stage == NEWARY_NONE)
		return;
	emit_sem_create(ns_inum(ns), &call->lim, BPF_CORE_READ(params, key),
			nsems, BPF_CORE_READ(params, flg), ret,
			newary_reason(call, nsems, ret), 0);
	if (!call->from_syscall) {
		/* no caller's exit will: a path without its hook */
		bpf_map_delete_elem(&semget_calls, &pid_tgid);
		return;
	}
	call->stage = NEWARY_NONE;
	call->reported = true;
}

SEC("fexit/newary")
int BPF_PROG(fx_newary, struct ipc_namespace *ns, struct ipc_params *params,
	     int ret)
{
	on_newary_exit(ns, params, ret);
	return 0;
}

SEC("kretprobe/newary")
int BPF_KRETPROBE(kr_newary, int ret)
{
	struct kp_args a;

	if (kp_take(KP_NEWARY, &a))
		on_newary_exit((void *)a.a[0], (void *)a.a[1], ret);
	return 0;
}

static __always_inline void on_sem_more_checks_exit(struct kern_ipc_perm *ipcp,
						    struct ipc_params *params,
						    int ret)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ipc_namespace *ns = BPF_CORE_READ(task, nsproxy, ipc_ns);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct semget_call *call;
	struct sem_limits lim;

	if (ret != -EINVAL)
		return;
	call = bpf_map_lookup_elem(&semget_calls, &pid_tgid);
	if (call)
		call->reported = true;
	read_sem_limits(ns, &lim);
	emit_sem_create(ns_inum(ns), &lim, BPF_CORE_READ(params, key),
			BPF_CORE_READ(params, u.nsems),
			BPF_CORE_READ(params, flg), ret,
			IPCW_SEM_CREATE_EXISTING_FEWER,
			BPF_CORE_READ(to_sem_array(ipcp), sem_nsems));
}

SEC("fexit/sem_more_checks")
int BPF_PROG(fx_sem_more_checks, struct kern_ipc_perm *ipcp,
	     struct ipc_params *params, int ret)
{
	on_sem_more_checks_exit(ipcp, params, ret);
	return 0;
}

SEC("kprobe/sem_more_checks")
int BPF_KPROBE(kp_sem_more_checks, struct kern_ipc_perm *ipcp,
	       struct ipc_params *params)
{
	kp_keep(KP_SEM_MORE_CHECKS, (__u64)ipcp, (__u64)params, 0, 0, 0);
	return 0;
}

SEC("kretprobe/sem_more_checks")
int BPF_KRETPROBE(kr_sem_more_checks, int ret)
{
	struct kp_args a;

	if (kp_take(KP_SEM_MORE_CHECKS, &a))
		on_sem_more_checks_exit((void *)a.a[0], (void *)a.a[1], ret);
	return 0;
}

/*
 * freeary() has two callers, in 6.1 as since 2.6: semctl_down() for
 * IPC_RMID (from every system call that reaches it: semctl(2), the
 * compat and ia32 ones, ipc(2)) and free_ipcs() from sem_exit_ns().
 */
DESTROY_CONTEXT(sem_exit_ns, CTX_SEM_NS_EXIT)

/*
 * fentry mode cannot count the waiters and the undo records: they are
 * on lists freeary() walks (one per semaphore), and the helpers that
 * wake each waiter are inlined.
 */
static __always_inline void on_freeary(struct ipc_namespace *ns,
				       struct kern_ipc_perm *ipcp)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 *bitsp = bpf_map_lookup_elem(&destroy_ctx, &pid_tgid);
	__u32 bits = bitsp ? *bitsp : 0, cause;
	struct sem_array *sma = to_sem_array(ipcp);

	if (!(details & DETAIL_SEM_DESTROY_CAUSE))
		cause = IPCW_SEM_DESTROY_UNEXPLAINED;
	else if (bits & CTX_SEM_NS_EXIT)
		cause = IPCW_SEM_DESTROY_NS_EXIT;
	else
		cause = IPCW_SEM_DESTROY_RMID;
	emit_sem_destroy(ns_inum(ns), ipcp, BPF_CORE_READ(sma, sem_nsems),
			 BPF_CORE_READ(sma, sem_ctime), -1, -1, cause);
}

SEC("fentry/freeary")
int BPF_PROG(fe_freeary, struct ipc_namespace *ns, struct kern_ipc_perm *ipcp)
{
	on_freeary(ns, ipcp);
	return 0;
}

SEC("kprobe/freeary")
int BPF_KPROBE(kp_freeary, struct ipc_namespace *ns, struct kern_ipc_perm *ipcp)
{
	on_freeary(ns, ipcp);
	return 0;
}

/*
 * A thread's state goes with it. A task asleep by our account never saw
 * its wake-up (a missed kretprobe): that sem_wake is lost, and counted.
 * The tracepoint fires before exit_shm(), whose context is set after.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tp_thread_exit, struct task_struct *task)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sem_sleep *s = bpf_map_lookup_elem(&sem_sleepers, &pid_tgid);
	struct kp_key k = { .pid_tgid = pid_tgid };
	struct sem_sleeper *ss = bpf_task_storage_get(&sem_tasks, task, 0, 0);
	__u32 st = ss ? SLEEP_STATE(ss->word) : SLEEP_IDLE;
	__u32 hook;

	if (s) {
		if (s->blocked)
			count_lost();
		bpf_map_delete_elem(&sem_sleepers, &pid_tgid);
	}
	/* fentry mode: a sleep whose end nothing decided; the storage
	 * itself goes with the task */
	if (st == SLEEP_ASLEEP || st == SLEEP_WAKER || st == SLEEP_WOKEN)
		count_lost();
	if (ss && st == SLEEP_INTR) {	/* returned -EINTR: its end */
		if (no_waker_left(ss->sma, sleep_lock(ss)))
			sleeper_wake(ss, -EINTR, 0);
		else
			count_lost();
	}
	if (ss && st == SLEEP_HELD)
		decide_own_held(no_waker_left(ss->sma, sleep_lock(ss)));
	bpf_map_delete_elem(&newseg_calls, &pid_tgid);
	bpf_map_delete_elem(&shmat_calls, &pid_tgid);
	bpf_map_delete_elem(&destroy_ctx, &pid_tgid);
	bpf_map_delete_elem(&semget_calls, &pid_tgid);
	/* unrolled: 6.1's verifier cannot bound a counter kept on the stack */
#pragma clang loop unroll(full)
	for (hook = 0; hook < KP_HOOKS; hook++) {
		k.hook = hook;
		bpf_map_delete_elem(&kp_stash, &k);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
