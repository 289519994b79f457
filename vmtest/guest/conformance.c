// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance suite: the System V IPC behaviour the 2014 seed changes
 * brought, with exact errnos and values. Each case runs in a fresh IPC
 * namespace, so it starts from kernel defaults and leaves nothing
 * behind. On the pre-seed kernel exactly the checks listed in
 * vmtest/preseed.xfail must fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#include "ipcutil.h"
#include "tap.h"

const char *tap_suite = "conformance";

static long page_size;
/* shmmax as a fresh namespace has it, read before any case runs */
static unsigned long pristine_shmmax;
/* the limits of the initial namespace, read before the suite unshares */
static unsigned long initial_shmmax, initial_shmall;

/* shmget() result as 0 or -errno, removing a created segment at once */
static int shmget_err(key_t key, size_t size, int flags)
{
	int id = shmget(key, size, flags);

	if (id < 0)
		return -errno;
	shmctl(id, IPC_RMID, NULL);
	return 0;
}

static unsigned long shm_tot(void)
{
	struct shm_info info;

	if (shmctl(0, SHM_INFO, (struct shmid_ds *)&info) < 0)
		return ~0UL;
	return info.shm_tot;
}

static void test_defaults(void)
{
	struct shminfo info = { 0 };
	bool info_ok;

	/* the host's own namespace, as booted, not only fresh ones */
	tap_is_u(initial_shmmax, SHM_DEFAULT_LIMIT,
		 "defaults.initial_namespace_shmmax");
	tap_is_u(initial_shmall, SHM_DEFAULT_LIMIT,
		 "defaults.initial_namespace_shmall");
	fresh_ipc_ns();
	tap_is_u(sysctl_get("shmmax"), SHM_DEFAULT_LIMIT, "defaults.shmmax");
	tap_is_u(sysctl_get("shmall"), SHM_DEFAULT_LIMIT, "defaults.shmall");
	tap_is_u(sysctl_get("shmmni"), 4096, "defaults.shmmni");
	/* the fields are read only when the call filled them; else they fail */
	info_ok = tap_is(shmctl(0, IPC_INFO, (struct shmid_ds *)&info), 0,
			 "defaults.ipc_info_succeeds");
	tap_ok(info_ok && info.shmmax == SHM_DEFAULT_LIMIT &&
	       info.shmall == SHM_DEFAULT_LIMIT,
	       "defaults.ipc_info_limits");
	tap_ok(info_ok && info.shmmin == 1, "defaults.ipc_info_shmmin");

	/* limits are per namespace; a new namespace gets the defaults */
	sysctl_must_set("shmmax", 12345);
	fresh_ipc_ns();
	tap_is_u(sysctl_get("shmmax"), pristine_shmmax,
		 "defaults.new_namespace_resets_shmmax");
}

static void test_shmmin_shmmax(void)
{
	fresh_ipc_ns();
	tap_is(shmget_err(IPC_PRIVATE, 0, IPC_CREAT | 0600), -EINVAL,
	       "shmmin.size_zero_einval");
	tap_is(shmget_err(IPC_PRIVATE, 1, IPC_CREAT | 0600), 0,
	       "shmmin.size_one_ok");

	sysctl_must_set("shmmax", 8192);
	tap_is(shmget_err(IPC_PRIVATE, 8193, IPC_CREAT | 0600), -EINVAL,
	       "shmmax.over_einval");
	tap_is(shmget_err(IPC_PRIVATE, 8192, IPC_CREAT | 0600), 0,
	       "shmmax.equal_ok");
}

static void test_page_roundup(void)
{
	/* the smallest size whose round-up to whole pages wraps */
	size_t first_wrap = ~0UL - page_size + 2;

	fresh_ipc_ns();
	sysctl_must_set("shmmax", ~0UL);
	/* the 2014 shmall, so only the round-up check can differ */
	sysctl_must_set("shmall", SHM_DEFAULT_LIMIT);
	tap_is(shmget_err(IPC_PRIVATE, ~0UL - 10, IPC_CREAT | 0600), -ENOSPC,
	       "page_roundup.overflow_enospc");
	tap_is(shmget_err(IPC_PRIVATE, first_wrap, IPC_CREAT | 0600), -ENOSPC,
	       "page_roundup.first_wrapping_size_enospc");
	/* one byte less rounds up without wrapping: refused later, by
	 * the shmem file setup, as larger than any file */
	tap_is(shmget_err(IPC_PRIVATE, first_wrap - 1,
			  IPC_CREAT | SHM_NORESERVE | 0600), -EINVAL,
	       "page_roundup.last_fitting_size_not_enospc");
	tap_is_u(shm_tot(), 0, "page_roundup.shm_tot_untouched");
}

static void test_shm_tot_wrap(void)
{
	/* the largest shmem file: 2^51 pages with 4 KiB pages */
	size_t huge = LONG_MAX;
	unsigned long pages = (huge + page_size - 1) / page_size;
	unsigned long fit = ~0UL / pages; /* segments before the wrap */
	unsigned long i, created = 0;
	int id;

	fresh_ipc_ns();
	/* the 2014 defaults, set explicitly so the pre-seed kernel runs
	 * the same requests and only the wrap check differs */
	sysctl_must_set("shmmax", SHM_DEFAULT_LIMIT);
	sysctl_must_set("shmall", SHM_DEFAULT_LIMIT);
	sysctl_must_set("shmmni", 2 * fit + 16);

	for (i = 0; i < fit; i++) {
		if (shmget(IPC_PRIVATE, huge,
			   IPC_CREAT | SHM_NORESERVE | 0600) < 0) {
			tap_diag("segment %lu: %s", i, strerror(errno));
			break;
		}
		created++;
	}
	tap_is_u(created, fit, "shm_tot.fill_below_wrap");
	tap_is_u(shm_tot(), fit * pages, "shm_tot.exact_below_wrap");

	id = shmget(IPC_PRIVATE, huge, IPC_CREAT | SHM_NORESERVE | 0600);
	tap_is(id < 0 ? -errno : id, -ENOSPC, "shm_tot.wrap_refused_enospc");
	tap_is_u(shm_tot(), fit * pages, "shm_tot.exact_after_refusal");
	/* the namespace teardown removes the segments */
}

static void test_shmall(void)
{
	fresh_ipc_ns();
	/* shmall counts pages: 4097 bytes take 2 */
	sysctl_must_set("shmall", 3);
	tap_ok(shmget(IPC_PRIVATE, page_size + 1, IPC_CREAT | 0600) >= 0,
	       "shmall.two_pages_fit");
	tap_ok(shmget(IPC_PRIVATE, page_size, IPC_CREAT | 0600) >= 0,
	       "shmall.third_page_fits");
	tap_is_u(shm_tot(), 3, "shmall.shm_tot_in_pages");
	tap_is(shmget_err(IPC_PRIVATE, 1, IPC_CREAT | 0600), -ENOSPC,
	       "shmall.one_byte_over_enospc");

	fresh_ipc_ns();
	sysctl_must_set("shmall", 0);
	tap_is(shmget_err(IPC_PRIVATE, 1, IPC_CREAT | 0600), -ENOSPC,
	       "shmall.zero_disables_enospc");
}

static void test_shmat_wrap(void)
{
	/* page aligned, and addr + size wraps around */
	void *top = (void *)(~0UL - (unsigned long)page_size + 1);
	void *addr;
	int id;

	fresh_ipc_ns();
	id = shmget(IPC_PRIVATE, 2 * page_size, IPC_CREAT | 0600);
	if (!tap_ok(id >= 0, "shmat.segment_created"))
		return;
	addr = shmat(id, top, 0);
	tap_is(addr == (void *)-1 ? -errno : 0, -EINVAL, "shmat.wrap_einval");
	if (addr != (void *)-1)
		shmdt(addr);

	addr = shmat(id, NULL, 0);
	tap_ok(addr != (void *)-1, "shmat.normal_attach_ok");
	if (addr != (void *)-1)
		shmdt(addr);
}

static void test_shmmax_sysctl(void)
{
	fresh_ipc_ns();
	/*
	 * "Read the value and add one", as a script does: the default plus
	 * one, written as the text a 64-bit shell prints. The kernel keeps
	 * it exactly, and a segment larger than the old 32 MiB still fits.
	 */
	tap_is(sysctl_set("shmmax", "18446744073692774400"), 0,
	       "sysctl.shmmax_read_add_one_ok");
	tap_is_u(sysctl_get("shmmax"), 18446744073692774400UL,
		 "sysctl.shmmax_read_add_one_value");
	tap_is(shmget_err(IPC_PRIVATE, 64 << 20, IPC_CREAT | 0600), 0,
	       "sysctl.shmmax_read_add_one_shmget_succeeds");
	/*
	 * The same script on shmmax = ULONG_MAX wraps to 0: the kernel
	 * takes 0, and then refuses every segment.
	 */
	tap_is(sysctl_set("shmmax", "0"), 0, "sysctl.shmmax_wrapped_zero_ok");
	tap_is_u(sysctl_get("shmmax"), 0, "sysctl.shmmax_wrapped_zero_value");
	tap_is(shmget_err(IPC_PRIVATE, (size_t)page_size, IPC_CREAT | 0600),
	       -EINVAL, "sysctl.shmmax_wrapped_zero_refuses_shmget");
	/* a limit set low is a limit */
	tap_is(sysctl_set("shmmax", "8192"), 0, "sysctl.shmmax_8192_ok");
	tap_is(shmget_err(IPC_PRIVATE, 8192, IPC_CREAT | 0600), 0,
	       "sysctl.shmmax_8192_fits");
	tap_is(shmget_err(IPC_PRIVATE, 8193, IPC_CREAT | 0600), -EINVAL,
	       "sysctl.shmmax_8193_einval");

	sysctl_must_set("shmmax", ~0UL);
	/* ULONG_MAX + 1 does not parse as an unsigned long */
	tap_is(sysctl_set("shmmax", "18446744073709551616"), -EINVAL,
	       "sysctl.shmmax_ulong_max_plus_one_einval");
	tap_is_u(sysctl_get("shmmax"), ~0UL,
		 "sysctl.shmmax_ulong_max_plus_one_unchanged");
}

/* A semaphore set of nsems, every value 0 except as given. */
static int sem_set(int nsems, const unsigned short *values)
{
	union semun arg = { .array = (unsigned short *)values };
	int id = semget(IPC_PRIVATE, nsems, IPC_CREAT | 0600);

	if (id < 0 || semctl(id, 0, SETALL, arg) < 0) {
		perror("semget/SETALL");
		exit(2);
	}
	return id;
}

static int ncnt(int id, int num)
{
	return semctl(id, num, GETNCNT);
}

static int zcnt(int id, int num)
{
	return semctl(id, num, GETZCNT);
}

/*
 * Start a sleeper and wait until it sleeps in semop(): a check, so a
 * "not counted" check can never pass because nobody slept.
 */
static pid_t sleeper(int id, const struct sembuf *sops, size_t nsops,
		     const char *name)
{
	pid_t pid = spawn_semop(id, sops, nsops, -1);

	tap_ok(wait_in_semop(pid), "sem.%s_sleeps", name);
	return pid;
}

static void kill_all(const pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		reap(pids[i]);
	}
}

static void test_sem_several_waiters(void)
{
	static const unsigned short vals[3] = { 0, 1, 0 };
	struct sembuf dec0 = { 0, -1, 0 }, zero1 = { 1, 0, 0 };
	struct sembuf post0 = { 0, 3, 0 }, take1 = { 1, -1, 0 };
	pid_t pids[5];
	int id, i, ok = 1;
	char name[32];

	fresh_ipc_ns();
	id = sem_set(3, vals);

	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "several_waiter%d", i);
		pids[i] = sleeper(id, i < 3 ? &dec0 : &zero1, 1, name);
	}
	tap_is(ncnt(id, 0), 3, "sem.several_waiters_ncnt");
	tap_is(zcnt(id, 1), 2, "sem.several_waiters_zcnt");
	tap_is(zcnt(id, 0) + ncnt(id, 1) + ncnt(id, 2) + zcnt(id, 2), 0,
	       "sem.several_waiters_nothing_else");

	/* releasing them wakes all five and the counts drop to zero */
	semop(id, &post0, 1);
	semop(id, &take1, 1);
	for (i = 0; i < 5; i++)
		ok &= reap(pids[i]) == 0;
	tap_ok(ok, "sem.several_waiters_all_woken");
	tap_is(ncnt(id, 0) + zcnt(id, 1), 0, "sem.wakeup_clears_counts");
}

static void test_sem_complex(void)
{
	static const unsigned short vals[3] = { 0, 1, 1 };
	/* blocks on sem 0; the decrement of sem 1 is never reached */
	struct sembuf dec_dec[2] = { { 0, -1, 0 }, { 1, -2, 0 } };
	/* an altering operation whose first blocker waits for zero */
	struct sembuf zero_dec[2] = { { 2, 0, 0 }, { 0, -1, 0 } };
	/* blocks on sem 0 before its wait-for-zero on sem 2 */
	struct sembuf dec_zero[2] = { { 0, -1, 0 }, { 2, 0, 0 } };
	/* wait-for-zero only: blocks on sem 1 */
	struct sembuf zero_zero[2] = { { 1, 0, 0 }, { 2, 0, 0 } };
	pid_t pids[1];
	int id;

	fresh_ipc_ns();
	id = sem_set(3, vals);
	pids[0] = sleeper(id, dec_dec, 2, "dec_dec");
	tap_is(ncnt(id, 0), 1, "sem.complex_counts_blocking_semaphore");
	tap_is(ncnt(id, 1), 0, "sem.complex_later_decrement_not_counted");
	kill_all(pids, 1);

	pids[0] = sleeper(id, zero_dec, 2, "zero_dec");
	tap_is(zcnt(id, 2), 1, "sem.complex_alter_wait_for_zero_in_zcnt");
	tap_is(ncnt(id, 0), 0, "sem.complex_decrement_after_zero_not_counted");
	kill_all(pids, 1);

	pids[0] = sleeper(id, dec_zero, 2, "dec_zero");
	tap_is(ncnt(id, 0), 1, "sem.complex_decrement_first_in_ncnt");
	tap_is(zcnt(id, 2), 0, "sem.complex_zero_after_decrement_not_counted");
	kill_all(pids, 1);

	pids[0] = sleeper(id, zero_zero, 2, "zero_zero");
	tap_is(zcnt(id, 1), 1, "sem.complex_zero_first_in_zcnt");
	tap_is(zcnt(id, 2), 0, "sem.complex_second_zero_not_counted");
	kill_all(pids, 1);
}

/*
 * SUSv4: a task counts once, on the semaphore it waits for. Two
 * decrements of one semaphore whose value is 1 block on the second;
 * GETNCNT is 1 (the pre-2014 kernel counted each operation: 2).
 */
static void test_sem_same_twice(void)
{
	static const unsigned short vals[1] = { 1 };
	struct sembuf twice[2] = { { 0, -1, 0 }, { 0, -1, 0 } };
	pid_t pids[1];
	int id;

	fresh_ipc_ns();
	id = sem_set(1, vals);
	pids[0] = sleeper(id, twice, 2, "same_twice");
	tap_is(ncnt(id, 0), 1, "sem.same_semaphore_twice_counted_once");
	tap_is(semctl(id, 0, GETVAL), 1, "sem.same_semaphore_twice_value_kept");
	kill_all(pids, 1);
}

static void test_sem_nowait(void)
{
	static const unsigned short vals[2] = { 0, 0 };
	struct sembuf nowait = { 0, -1, IPC_NOWAIT };
	/* sleeps on sem 0; its IPC_NOWAIT operation on sem 1 never counts */
	struct sembuf mixed[2] = { { 0, -1, 0 }, { 1, -1, IPC_NOWAIT } };
	pid_t pids[1];
	int id;

	fresh_ipc_ns();
	id = sem_set(2, vals);
	tap_is(semop(id, &nowait, 1) < 0 ? -errno : 0, -EAGAIN,
	       "sem.nowait_eagain");
	tap_is(ncnt(id, 0), 0, "sem.nowait_not_counted");

	pids[0] = sleeper(id, mixed, 2, "mixed");
	tap_is(ncnt(id, 0), 1, "sem.nowait_mixed_blocking_counted");
	tap_is(ncnt(id, 1), 0, "sem.nowait_mixed_nowait_op_not_counted");
	kill_all(pids, 1);
}

/*
 * Peer suites such as LTP read the running kernel's configuration from
 * /proc/config.gz: the guest kernels must carry it (CONFIG_IKCONFIG_PROC).
 */
static void test_ikconfig(void)
{
	bool sysvipc = false, ikconfig_proc = false;
	char line[256];
	FILE *p;

	if (!tap_ok(access("/proc/config.gz", R_OK) == 0,
		    "ikconfig.proc_config_gz_readable"))
		tap_diag("/proc/config.gz: %s", strerror(errno));
	p = popen("zcat /proc/config.gz 2>/dev/null", "r");
	if (p) {
		while (fgets(line, sizeof(line), p)) {
			if (!strcmp(line, "CONFIG_SYSVIPC=y\n"))
				sysvipc = true;
			if (!strcmp(line, "CONFIG_IKCONFIG_PROC=y\n"))
				ikconfig_proc = true;
		}
		pclose(p);
	}
	tap_ok(sysvipc, "ikconfig.config_sysvipc_y");
	tap_ok(ikconfig_proc, "ikconfig.config_ikconfig_proc_y");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	initial_shmmax = sysctl_get("shmmax");
	initial_shmall = sysctl_get("shmall");
	fresh_ipc_ns();
	pristine_shmmax = sysctl_get("shmmax");

	test_defaults();
	test_shmmin_shmmax();
	test_page_roundup();
	test_shm_tot_wrap();
	test_shmall();
	test_shmat_wrap();
	test_shmmax_sysctl();
	test_sem_several_waiters();
	test_sem_complex();
	test_sem_nowait();
	test_sem_same_twice();
	test_ikconfig();
	return tap_done();
}
