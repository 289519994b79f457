/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types of the kernel-patches/ series' ipc trace events
 * (include/trace/events/ipc.h there) that the tp_btf programs name, so
 * that bpf/ compiles against a stock kernel's vmlinux.h, which has none
 * of them. At load time libbpf finds each event by its btf_trace_<name>
 * type in the running kernel's BTF; a kernel without the series simply
 * has none, and the fentry programs are used instead.
 */
#ifndef IPCWATCH_IPC_TRACE_H
#define IPCWATCH_IPC_TRACE_H

/* Values as the series defines them: tracepoint arguments are copied. */
enum ipc_shm_create_reason {
	IPC_SHM_CREATE_OK,
	IPC_SHM_CREATE_TOO_SMALL,
	IPC_SHM_CREATE_OVER_SHMMAX,
	IPC_SHM_CREATE_PAGE_OVERFLOW,
	IPC_SHM_CREATE_TOTAL_WRAP,
	IPC_SHM_CREATE_OVER_SHMALL,
	IPC_SHM_CREATE_NO_IDS,
	IPC_SHM_CREATE_EXISTING_SMALLER,
	IPC_SHM_CREATE_LSM_DENIED,
	IPC_SHM_CREATE_NOMEM,
	IPC_SHM_CREATE_FILE_SETUP,
	IPC_SHM_CREATE_BAD_HUGEPAGE,
};

enum ipc_shm_destroy_cause {
	IPC_SHM_DESTROY_RMID,
	IPC_SHM_DESTROY_LAST_DETACH,
	IPC_SHM_DESTROY_ORPHAN_EXIT,
	IPC_SHM_DESTROY_ORPHAN_SYSCTL,
	IPC_SHM_DESTROY_NS_EXIT,
	IPC_SHM_DESTROY_FORCED_DETACH,
};

/* The events' prototypes (TP_PROTO), for BPF_PROG(name, IPC_TP_...). */
#define IPC_TP_SHM_CREATE const struct ipc_namespace *ns, key_t key,	\
	size_t size, int shmflg, size_t shm_tot, int ret,		\
	enum ipc_shm_create_reason reason, size_t existing_size
#define IPC_TP_SHMAT const struct ipc_namespace *ns, int shmid,		\
	unsigned long addr, int shmflg, unsigned long size,		\
	unsigned long raddr, int err, bool addr_wrap
#define IPC_TP_SHM_NATTCH const struct ipc_namespace *ns, int id,	\
	unsigned long nattch
#define IPC_TP_SHM_DESTROY const struct ipc_namespace *ns,		\
	const struct kern_ipc_perm *perm, size_t size, pid_t cpid,	\
	time64_t ctime, enum ipc_shm_destroy_cause cause
#define IPC_TP_SHMCTL const struct ipc_namespace *ns, int shmid, int cmd, \
	long ret
#define IPC_TP_SEM_BLOCK const struct ipc_namespace *ns, int semid,	\
	const struct sembuf *sops, unsigned int nsops,			\
	const struct sembuf *blocking, bool timeout
#define IPC_TP_SEM_WAKE const struct ipc_namespace *ns, int semid, int err

#endif
