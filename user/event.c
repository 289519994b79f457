// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE /* IPC_INFO, SHM_INFO */
#include "event.h"

#include <errno.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

static const char *const type_names[IPCW_TYPE_MAX] = {
	[IPCW_SHM_CREATE] = "shm_create",
	[IPCW_SHMAT] = "shmat",
	[IPCW_SHM_ATTACH] = "shm_attach",
	[IPCW_SHM_DETACH] = "shm_detach",
	[IPCW_SHM_DESTROY] = "shm_destroy",
	[IPCW_SHMCTL] = "shmctl",
	[IPCW_SEM_BLOCK] = "sem_block",
	[IPCW_SEM_WAKE] = "sem_wake",
	[IPCW_SHM_ORPHAN] = "shm_orphan",
	[IPCW_SEM_CREATE] = "sem_create",
	[IPCW_SEM_DESTROY] = "sem_destroy",
	[IPCW_SEM_UNDO] = "sem_undo",
};

static const char *const sem_reason_names[IPCW_SEM_CREATE_REASON_MAX] = {
	[IPCW_SEM_CREATE_OK] = "ok",
	[IPCW_SEM_CREATE_BAD_NSEMS] = "bad_nsems",
	[IPCW_SEM_CREATE_OVER_SEMMSL] = "over_semmsl",
	[IPCW_SEM_CREATE_NO_NSEMS] = "no_nsems",
	[IPCW_SEM_CREATE_OVER_SEMMNS] = "over_semmns",
	[IPCW_SEM_CREATE_NO_IDS] = "no_ids",
	[IPCW_SEM_CREATE_EXISTING_FEWER] = "existing_fewer",
	[IPCW_SEM_CREATE_LSM_DENIED] = "lsm_denied",
	[IPCW_SEM_CREATE_NOMEM] = "nomem",
	[IPCW_SEM_CREATE_UNEXPLAINED] = "unexplained",
};

static const char *const sem_cause_names[IPCW_SEM_DESTROY_CAUSE_MAX] = {
	[IPCW_SEM_DESTROY_RMID] = "rmid",
	[IPCW_SEM_DESTROY_NS_EXIT] = "ns_exit",
	[IPCW_SEM_DESTROY_UNEXPLAINED] = "unexplained",
};

static const char *const reason_names[IPCW_CREATE_REASON_MAX] = {
	[IPCW_CREATE_OK] = "ok",
	[IPCW_CREATE_TOO_SMALL] = "too_small",
	[IPCW_CREATE_OVER_SHMMAX] = "over_shmmax",
	[IPCW_CREATE_PAGE_OVERFLOW] = "page_overflow",
	[IPCW_CREATE_TOTAL_WRAP] = "total_wrap",
	[IPCW_CREATE_OVER_SHMALL] = "over_shmall",
	[IPCW_CREATE_NO_IDS] = "no_ids",
	[IPCW_CREATE_EXISTING_SMALLER] = "existing_smaller",
	[IPCW_CREATE_LSM_DENIED] = "lsm_denied",
	[IPCW_CREATE_NOMEM] = "nomem",
	[IPCW_CREATE_FILE_SETUP] = "file_setup",
	[IPCW_CREATE_BAD_HUGEPAGE] = "bad_hugepage",
	[IPCW_CREATE_UNEXPLAINED] = "unexplained",
};

static const char *const cause_names[IPCW_DESTROY_CAUSE_MAX] = {
	[IPCW_DESTROY_RMID] = "rmid",
	[IPCW_DESTROY_LAST_DETACH] = "last_detach",
	[IPCW_DESTROY_ORPHAN_EXIT] = "orphan_exit",
	[IPCW_DESTROY_ORPHAN_SYSCTL] = "orphan_sysctl",
	[IPCW_DESTROY_NS_EXIT] = "ns_exit",
	[IPCW_DESTROY_FORCED_DETACH] = "forced_detach",
	[IPCW_DESTROY_UNEXPLAINED] = "unexplained",
	[IPCW_DESTROY_SHMAT_FAILED] = "shmat_failed",
};

static const char *const shmat_reason_names[IPCW_SHMAT_REASON_MAX] = {
	[IPCW_SHMAT_OK] = "ok",
	[IPCW_SHMAT_BAD_ARGS] = "bad_args",
	[IPCW_SHMAT_NO_SEGMENT] = "no_segment",
	[IPCW_SHMAT_NO_ACCESS] = "no_access",
	[IPCW_SHMAT_LSM_DENIED] = "lsm_denied",
	[IPCW_SHMAT_REMOVED] = "removed",
	[IPCW_SHMAT_NOMEM] = "nomem",
	[IPCW_SHMAT_INTERRUPTED] = "interrupted",
	[IPCW_SHMAT_ADDR_WRAP] = "addr_wrap",
	[IPCW_SHMAT_ADDR_OVERLAP] = "addr_overlap",
	[IPCW_SHMAT_MMAP_FAILED] = "mmap_failed",
	[IPCW_SHMAT_UNEXPLAINED] = "unexplained",
};

int event_decode(const void *data, size_t size, struct ipcw_event *out)
{
	const struct ipcw_event *e = data;

	if (size < sizeof(*e) || e->type == 0 || e->type >= IPCW_TYPE_MAX)
		return -EINVAL;
	if (e->type == IPCW_SHM_CREATE &&
	    e->shm_create.reason >= IPCW_CREATE_REASON_MAX)
		return -EINVAL;
	if (e->type == IPCW_SHM_DESTROY &&
	    e->shm_destroy.cause >= IPCW_DESTROY_CAUSE_MAX)
		return -EINVAL;
	if (e->type == IPCW_SHMAT && (e->shmat.reason >= IPCW_SHMAT_REASON_MAX ||
				      e->shmat.args_known > 1))
		return -EINVAL;
	/* a timeout is only told with a hook that can tell it */
	if (e->type == IPCW_SEM_WAKE &&
	    (e->sem_wake.timed_out_known > 1 ||
	     e->sem_wake.timed_out > e->sem_wake.timed_out_known))
		return -EINVAL;
	if (e->type == IPCW_SEM_CREATE &&
	    (e->sem_create.reason >= IPCW_SEM_CREATE_REASON_MAX ||
	     (e->sem_create.reason == IPCW_SEM_CREATE_OK) !=
	     (e->sem_create.err == 0)))
		return -EINVAL;
	/* counts are only told with a hook that can count them */
	if (e->type == IPCW_SEM_DESTROY &&
	    (e->sem_destroy.cause >= IPCW_SEM_DESTROY_CAUSE_MAX ||
	     e->sem_destroy.counts_known > 1 ||
	     e->sem_destroy.waiters < 0 || e->sem_destroy.undos < 0 ||
	     (!e->sem_destroy.counts_known &&
	      (e->sem_destroy.waiters || e->sem_destroy.undos))))
		return -EINVAL;
	/* a set gone had nothing applied; clamped ones are adjusted ones */
	if (e->type == IPCW_SEM_UNDO &&
	    (e->sem_undo.gone > 1 || e->sem_undo.adjusted < 0 ||
	     e->sem_undo.clamped < 0 ||
	     e->sem_undo.clamped > e->sem_undo.adjusted ||
	     e->sem_undo.adjusted > e->sem_undo.nsems ||
	     (e->sem_undo.gone && e->sem_undo.nsems)))
		return -EINVAL;
	memcpy(out, e, sizeof(*out));
	out->comm[IPCW_COMM_LEN - 1] = '\0';
	return 0;
}

bool event_failed(const struct ipcw_event *e)
{
	switch (e->type) {
	case IPCW_SHM_CREATE:
		return e->shm_create.err != 0;
	case IPCW_SHMAT:
		return e->shmat.err != 0;
	case IPCW_SHMCTL:
		return e->shmctl.ret < 0;
	case IPCW_SEM_WAKE:
		return e->sem_wake.err != 0;
	case IPCW_SEM_CREATE:
		return e->sem_create.err != 0;
	default:
		return false;
	}
}

const char *event_type_name(uint32_t type)
{
	return type < IPCW_TYPE_MAX && type_names[type] ? type_names[type] :
							   "unknown";
}

const char *shm_reason_name(uint32_t reason)
{
	return reason < IPCW_CREATE_REASON_MAX ? reason_names[reason] :
						 "unknown";
}

const char *destroy_cause_name(uint32_t cause)
{
	return cause < IPCW_DESTROY_CAUSE_MAX ? cause_names[cause] : "unknown";
}

const char *shmat_reason_name(uint32_t reason)
{
	return reason < IPCW_SHMAT_REASON_MAX ? shmat_reason_names[reason] :
						"unknown";
}

const char *sem_reason_name(uint32_t reason)
{
	return reason < IPCW_SEM_CREATE_REASON_MAX ? sem_reason_names[reason] :
						     "unknown";
}

const char *sem_destroy_cause_name(uint32_t cause)
{
	return cause < IPCW_SEM_DESTROY_CAUSE_MAX ? sem_cause_names[cause] :
						    "unknown";
}

const char *shmctl_cmd_name(int cmd)
{
	switch (cmd) {
	case IPC_RMID: return "IPC_RMID";
	case IPC_SET: return "IPC_SET";
	case IPC_STAT: return "IPC_STAT";
	case IPC_INFO: return "IPC_INFO";
	case SHM_LOCK: return "SHM_LOCK";
	case SHM_UNLOCK: return "SHM_UNLOCK";
	case SHM_STAT: return "SHM_STAT";
	case SHM_INFO: return "SHM_INFO";
	case SHM_STAT_ANY: return "SHM_STAT_ANY";
	default: return NULL;
	}
}

const char *errno_name(int err)
{
	switch (err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case E2BIG: return "E2BIG";
	case EAGAIN: return "EAGAIN";
	case EIDRM: return "EIDRM";
	case EOVERFLOW: return "EOVERFLOW";
	default: return NULL;
	}
}

const char *mode_name(enum ipcw_mode mode)
{
	switch (mode) {
	case IPCW_MODE_TRACEPOINT: return "tracepoint";
	case IPCW_MODE_FENTRY: return "fentry";
	case IPCW_MODE_KPROBE: return "kprobe";
	default: return "auto";
	}
}

int parse_mode(const char *s, enum ipcw_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = IPCW_MODE_AUTO;
	else if (!strcmp(s, "tracepoint"))
		*mode = IPCW_MODE_TRACEPOINT;
	else if (!strcmp(s, "fentry"))
		*mode = IPCW_MODE_FENTRY;
	else if (!strcmp(s, "kprobe"))
		*mode = IPCW_MODE_KPROBE;
	else
		return -EINVAL;
	return 0;
}
