/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the BPF programs (bpf/) and user space (user/):
 * the one event record the ring buffer carries, and its codes.
 *
 * The codes are ipcwatch's own. The kernel's reasons and causes (enum
 * ipc_shm_create_reason and the others of the kernel-patches/ series'
 * include/trace/events/ipc.h) carry no ABI promise on their values: the
 * tracepoint programs map them by name, with CO-RE enum relocations.
 * The values of the codes are append only; the layout of the record may
 * change, since the BPF object and the decoder ship in one binary.
 */
#ifndef IPCWATCH_H
#define IPCWATCH_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define IPCW_COMM_LEN 16

enum ipcw_type {
	IPCW_SHM_CREATE = 1,	/* shmget() created, or refused to */
	IPCW_SHMAT,		/* outcome of shmat() */
	IPCW_SHM_ATTACH,	/* attach count went up */
	IPCW_SHM_DETACH,	/* attach count went down */
	IPCW_SHM_DESTROY,	/* a segment was freed */
	IPCW_SHMCTL,		/* outcome of shmctl() */
	IPCW_SEM_BLOCK,		/* a task sleeps in semop() */
	IPCW_SEM_WAKE,		/* ... and returned */
	IPCW_SHM_ORPHAN,	/* a segment outlives its creator */
	IPCW_SEM_CREATE,	/* semget() created a set, or refused to */
	IPCW_SEM_DESTROY,	/* a semaphore set was removed */
	IPCW_SEM_UNDO,		/* SEM_UNDO adjustments of a set at exit */
	IPCW_TYPE_MAX,
};

enum ipcw_shm_reason {
	IPCW_CREATE_OK,
	IPCW_CREATE_TOO_SMALL,
	IPCW_CREATE_OVER_SHMMAX,
	IPCW_CREATE_PAGE_OVERFLOW,
	IPCW_CREATE_TOTAL_WRAP,
	IPCW_CREATE_OVER_SHMALL,
	IPCW_CREATE_NO_IDS,
	IPCW_CREATE_EXISTING_SMALLER,
	IPCW_CREATE_LSM_DENIED,
	IPCW_CREATE_NOMEM,
	IPCW_CREATE_FILE_SETUP,
	IPCW_CREATE_BAD_HUGEPAGE,
	IPCW_CREATE_UNEXPLAINED,	/* fentry mode, a detail hook missing */
	IPCW_CREATE_REASON_MAX,
};

enum ipcw_destroy_cause {
	IPCW_DESTROY_RMID,
	IPCW_DESTROY_LAST_DETACH,
	IPCW_DESTROY_ORPHAN_EXIT,
	IPCW_DESTROY_ORPHAN_SYSCTL,
	IPCW_DESTROY_NS_EXIT,
	IPCW_DESTROY_FORCED_DETACH,
	IPCW_DESTROY_UNEXPLAINED,	/* fentry mode, a detail hook missing */
	IPCW_DESTROY_SHMAT_FAILED,	/* a failed shmat() dropped the last */
	IPCW_DESTROY_CAUSE_MAX,
};

enum ipcw_shmat_reason {
	IPCW_SHMAT_OK,
	IPCW_SHMAT_BAD_ARGS,
	IPCW_SHMAT_NO_SEGMENT,
	IPCW_SHMAT_NO_ACCESS,
	IPCW_SHMAT_LSM_DENIED,
	IPCW_SHMAT_REMOVED,
	IPCW_SHMAT_NOMEM,
	IPCW_SHMAT_INTERRUPTED,
	IPCW_SHMAT_ADDR_WRAP,
	IPCW_SHMAT_ADDR_OVERLAP,
	IPCW_SHMAT_MMAP_FAILED,
	IPCW_SHMAT_UNEXPLAINED,		/* fentry mode: only the wrap is known */
	IPCW_SHMAT_REASON_MAX,
};

enum ipcw_sem_reason {
	IPCW_SEM_CREATE_OK,
	IPCW_SEM_CREATE_BAD_NSEMS,	/* nsems < 0 */
	IPCW_SEM_CREATE_OVER_SEMMSL,
	IPCW_SEM_CREATE_NO_NSEMS,	/* 0 semaphores for a new set */
	IPCW_SEM_CREATE_OVER_SEMMNS,
	IPCW_SEM_CREATE_NO_IDS,		/* semmni reached */
	IPCW_SEM_CREATE_EXISTING_FEWER,
	IPCW_SEM_CREATE_LSM_DENIED,
	IPCW_SEM_CREATE_NOMEM,
	IPCW_SEM_CREATE_UNEXPLAINED,	/* fentry mode, a detail hook missing */
	IPCW_SEM_CREATE_REASON_MAX,
};

enum ipcw_sem_destroy_cause {
	IPCW_SEM_DESTROY_RMID,
	IPCW_SEM_DESTROY_NS_EXIT,
	IPCW_SEM_DESTROY_UNEXPLAINED,	/* fentry mode, a detail hook missing */
	IPCW_SEM_DESTROY_CAUSE_MAX,
};

struct ipcw_shm_create {
	__u64 size;
	__u64 pages;		/* as the kernel rounds up, wrap included */
	__u64 shmmax;
	__u64 shmall;
	__u64 shm_tot;		/* pages in use before the request */
	__u64 existing_size;	/* existing_smaller: the key's segment */
	__s32 key;
	__s32 shmflg;
	__s32 shmmni;
	__s32 id;		/* new id, or -1 */
	__s32 err;		/* 0 or positive errno */
	__u32 reason;		/* enum ipcw_shm_reason */
};

struct ipcw_shmat {
	__u64 addr;		/* asked for; with args_known */
	__u64 size;		/* segment size, 0 if not found */
	__u64 raddr;		/* mapped at, 0 on failure; with args_known */
	__s32 id;
	__s32 shmflg;		/* with args_known */
	__s32 err;
	__u16 reason;		/* enum ipcw_shmat_reason */
	/*
	 * addr, shmflg and raddr are set: fentry and kprobe modes. The
	 * kernel's shmat event leaves them to the system call.
	 */
	__u16 args_known;
};

struct ipcw_nattch {
	__u64 nattch;		/* after the change */
	__s32 id;
	__u32 pad;
};

struct ipcw_shm_destroy {
	__u64 size;
	__u64 pages;
	__s64 ctime;
	__s32 id;
	__s32 key;
	__u32 owner_uid;
	__u32 cuid;
	__u32 cgid;
	__s32 cpid;		/* creator, initial pid namespace */
	__u32 cause;		/* enum ipcw_destroy_cause */
	__u32 pad;
};

struct ipcw_shmctl {
	__s64 ret;
	__s32 id;
	__s32 cmd;
};

struct ipcw_sem_block {
	__s32 id;
	__u32 nsops;
	__u32 index;		/* of the blocking operation */
	__u16 sem_num;
	__s16 sem_op;
	__s16 sem_flg;
	__u8 zcnt;		/* counts in GETZCNT, else GETNCNT */
	__u8 timeout;		/* semtimedop() with a timeout */
};

struct ipcw_sem_wake {
	__u64 slept_ns;		/* 0 if the block was not seen */
	__s32 id;
	__s32 err;		/* 0, EIDRM, EAGAIN, ERANGE or EINTR */
	__u16 sem_num;		/* of the blocking operation */
	__s16 sem_op;
	__u8 timed_out;		/* the timeout expired; with timed_out_known */
	__u8 timed_out_known;	/* tracepoint mode */
	__u16 pad;
};

struct ipcw_shm_orphan {
	__u64 size;
	__u64 pages;
	__u64 nattch;		/* when the creator exited */
	__s32 id;
	__s32 key;
	__u32 owner_uid;
	__u32 pad;
};

struct ipcw_sem_create {
	__s32 key;
	__s32 nsems;
	__s32 semflg;
	__s32 semmsl;		/* kernel.sem, as compared */
	__s32 semmns;
	__s32 semmni;
	__s32 used_sems;	/* semaphores in use before the request */
	__s32 existing_nsems;	/* existing_fewer: the key's set */
	__s32 id;		/* new id, or -1 */
	__s32 err;		/* 0 or positive errno */
	__u32 reason;		/* enum ipcw_sem_reason */
	__u32 pad;
};

struct ipcw_sem_destroy {
	__s64 ctime;
	__s32 id;
	__s32 key;
	__u32 owner_uid;
	__u32 cuid;
	__u32 cgid;
	__s32 nsems;
	__s32 waiters;		/* woken (EIDRM or EINTR); with counts_known */
	__s32 undos;		/* SEM_UNDO records dropped; with counts_known */
	__u32 cause;		/* enum ipcw_sem_destroy_cause */
	__u8 counts_known;	/* tracepoint mode */
	__u8 pad[3];
};

struct ipcw_sem_undo {
	/* -1: the removal had dropped the record; else the record's id,
	 * which once gone may name a newer set */
	__s32 id;
	__s32 nsems;		/* 0 if gone */
	__s32 adjusted;		/* nonzero adjustments applied (clamps too) */
	__s32 clamped;		/* of those, capped at 0 or SEMVMX */
	__u8 gone;		/* the set was removed first: nothing applied */
	__u8 pad[3];
};

struct ipcw_event {
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u64 cgroup_id;
	__u32 type;		/* enum ipcw_type */
	__u32 pid;		/* tgid of the task, initial pid namespace */
	__u32 tid;
	__u32 uid;
	__u32 gid;
	__u32 ipcns;		/* inode of the object's IPC namespace */
	char comm[IPCW_COMM_LEN];
	union {
		struct ipcw_shm_create shm_create;
		struct ipcw_shmat shmat;
		struct ipcw_nattch nattch;
		struct ipcw_shm_destroy shm_destroy;
		struct ipcw_shmctl shmctl;
		struct ipcw_sem_block sem_block;
		struct ipcw_sem_wake sem_wake;
		struct ipcw_shm_orphan shm_orphan;
		struct ipcw_sem_create sem_create;
		struct ipcw_sem_destroy sem_destroy;
		struct ipcw_sem_undo sem_undo;
	};
};

/* Which kernel hooks the collector uses. */
enum ipcw_mode {
	IPCW_MODE_AUTO,
	IPCW_MODE_TRACEPOINT,	/* tp_btf on the ipc trace events */
	IPCW_MODE_FENTRY,	/* fentry/fexit on stock kernels */
	IPCW_MODE_KPROBE,	/* kprobes: kernels without BPF trampolines */
};

#endif /* IPCWATCH_H */
