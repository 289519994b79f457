/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types of the kernel-patches/ series' ipc trace events
 * (include/trace/events/ipc.h there) that the tp_btf programs name, so
 * that bpf/ compiles against a stock kernel's vmlinux.h, which has none
 * of them. At load time libbpf finds each event by its btf_trace_<name>
 * type in the running kernel's BTF; a kernel without the series simply
 * has none, and the fentry programs are used instead.
 *
 * The series promises no values for its enums: the programs read each
 * value from the running kernel's BTF by name (bpf_core_enum_value()),
 * so the values below only keep the declarations complete.
 */
#ifndef IPCWATCH_IPC_TRACE_H
#define IPCWATCH_IPC_TRACE_H

enum ipc_shm_create_reason {
	IPC_SHM_CREATE_OK,
	IPC_SHM_CREATE_TOO_SMALL,
	IPC_SHM_CREATE_OVER_SHMMAX,
	IPC_SHM_CREATE_PAGE_OVERFLOW,
	IPC_SHM_CREATE_TOTAL_WRAP,
	IPC_SHM_CREATE_OVER_SHMALL,
	IPC_SHM_CREATE_NOMEM,
	IPC_SHM_CREATE_LSM_DENIED,
	IPC_SHM_CREATE_BAD_HUGEPAGE,
	IPC_SHM_CREATE_FILE_SETUP,
	IPC_SHM_CREATE_NO_IDS,
	IPC_SHM_CREATE_EXISTING_SMALLER,
};

enum ipc_shmat_reason {
	IPC_SHMAT_OK,
	IPC_SHMAT_BAD_ARGS,
	IPC_SHMAT_NO_SEGMENT,
	IPC_SHMAT_NO_ACCESS,
	IPC_SHMAT_LSM_DENIED,
	IPC_SHMAT_REMOVED,
	IPC_SHMAT_NOMEM,
	IPC_SHMAT_INTERRUPTED,
	IPC_SHMAT_ADDR_WRAP,
	IPC_SHMAT_ADDR_OVERLAP,
	IPC_SHMAT_MMAP_FAILED,
};

enum ipc_shm_destroy_cause {
	IPC_SHM_DESTROY_RMID,
	IPC_SHM_DESTROY_LAST_DETACH,
	IPC_SHM_DESTROY_ORPHAN_EXIT,
	IPC_SHM_DESTROY_ORPHAN_SYSCTL,
	IPC_SHM_DESTROY_NS_EXIT,
	IPC_SHM_DESTROY_FORCED_DETACH,
	IPC_SHM_DESTROY_SHMAT_FAILED,
};

enum ipc_sem_create_reason {
	IPC_SEM_CREATE_OK,
	IPC_SEM_CREATE_BAD_NSEMS,
	IPC_SEM_CREATE_OVER_SEMMSL,
	IPC_SEM_CREATE_NO_NSEMS,
	IPC_SEM_CREATE_OVER_SEMMNS,
	IPC_SEM_CREATE_NOMEM,
	IPC_SEM_CREATE_LSM_DENIED,
	IPC_SEM_CREATE_NO_IDS,
	IPC_SEM_CREATE_EXISTING_FEWER,
};

enum ipc_sem_destroy_cause {
	IPC_SEM_DESTROY_RMID,
	IPC_SEM_DESTROY_NS_EXIT,
};

/* The events' prototypes (TP_PROTO), for BPF_PROG(name, IPC_TP_...). */
#define IPC_TP_SHM_CREATE const struct ipc_namespace *ns, key_t key,	\
	size_t size, int shmflg, size_t shmmax, size_t shmall,		\
	int shmmni, size_t shm_tot, int ret,				\
	enum ipc_shm_create_reason reason, size_t existing_size
#define IPC_TP_SHMAT const struct ipc_namespace *ns, int shmid,		\
	unsigned long size, int ret, enum ipc_shmat_reason reason
#define IPC_TP_SHM_NATTCH const struct ipc_namespace *ns, int id,	\
	unsigned long nattch
#define IPC_TP_SHM_DESTROY const struct ipc_namespace *ns,		\
	const struct kern_ipc_perm *perm, size_t size, pid_t cpid,	\
	time64_t ctime, enum ipc_shm_destroy_cause cause
#define IPC_TP_SHM_ORPHAN const struct ipc_namespace *ns,		\
	const struct kern_ipc_perm *perm, size_t size,			\
	unsigned long nattch
#define IPC_TP_SEM_BLOCK const struct ipc_namespace *ns, int semid,	\
	const struct sembuf *sops, unsigned int nsops,			\
	const struct sembuf *blocking, bool timeout
#define IPC_TP_SEM_WAKE const struct ipc_namespace *ns, int semid,	\
	int err, bool timed_out
#define IPC_TP_SEM_CREATE const struct ipc_namespace *ns, key_t key,	\
	int nsems, int semflg, int semmsl, int semmns, int semmni,	\
	int used_sems, int ret, enum ipc_sem_create_reason reason,	\
	int existing_nsems
#define IPC_TP_SEM_DESTROY const struct ipc_namespace *ns,		\
	const struct kern_ipc_perm *perm, int nsems, time64_t ctime,	\
	int waiters, int undos, enum ipc_sem_destroy_cause cause
#define IPC_TP_SEM_UNDO const struct ipc_namespace *ns, int semid,	\
	int nsems, int adjusted, int clamped, bool gone

#endif
