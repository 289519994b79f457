// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the tracepoint suite: refuse every shm_alloc_security
 * and sem_alloc_security check of one process, so the lsm_denied paths
 * of shm_create and sem_create can be driven. Independent of ipcwatch's own BPF programs on purpose.
 * deny_errno ENOMEM is what security_*_alloc() return when the security
 * modules' blob cannot be allocated: that refusal is nomem.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1

const volatile __u32 target_tgid;
const volatile int deny_errno = EPERM;

SEC("lsm/shm_alloc_security")
int BPF_PROG(deny_shm_alloc, struct kern_ipc_perm *perm, int ret)
{
	if (ret)
		return ret;
	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	return -deny_errno;
}

SEC("lsm/sem_alloc_security")
int BPF_PROG(deny_sem_alloc, struct kern_ipc_perm *perm, int ret)
{
	if (ret)
		return ret;
	if (bpf_get_current_pid_tgid() >> 32 != target_tgid)
		return 0;
	return -deny_errno;
}

char LICENSE[] SEC("license") = "GPL";
