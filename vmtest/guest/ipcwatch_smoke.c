// SPDX-License-Identifier: GPL-2.0
/*
 * A short end-to-end check of ipcwatch events in auto mode, for the
 * architectures whose guest is too slow for the whole events suite
 * (arm64 under emulation): one of each event the mode delivers, checked
 * against what the test did, and nothing left loaded afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ipcutil.h"
#include "runner.h"
#include "tap.h"

const char *tap_suite = "ipcwatch_smoke";

int main(void)
{
	const char *argv[] = { "ipcwatch", "events", "--json", NULL };
	struct sembuf down = { 0, -1, 0 }, up = { 0, 1, 0 };
	union semun arg = { .val = 0 };
	int before = bpf_prog_count(), id, refused, err, semid;
	struct ipcwatch_run r;
	struct utsname uts;
	char says[64];
	bool arm64;
	json_object *ev;
	pid_t sleeper;
	void *at;

	setvbuf(stdout, NULL, _IOLBF, 0);
	uname(&uts);
	tap_diag("machine %s, kernel %s", uts.machine, uts.release);
	fresh_ipc_ns();
	if (!tap_ok(ipcwatch_start(&r, argv, NULL, NULL), "smoke.starts")) {
		tap_diag("  exit %d: %s", r.status, r.err);
		ipcwatch_free(&r);
		return tap_done();
	}
	id = shmget(0x5151, 3 * 4096, IPC_CREAT | 0600);
	refused = shmget(0x5151, 6 * 4096, 0600);
	err = errno;
	at = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	shmdt(at);
	semid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	semctl(semid, 0, SETVAL, arg);
	sleeper = spawn_semop(semid, &down, 1, -1);
	tap_ok(wait_in_semop(sleeper), "smoke.sleeper_sleeps");
	semop(semid, &up, 1);
	tap_is(reap(sleeper), 0, "smoke.sleeper_woken");
	semctl(semid, 0, IPC_RMID);
	ipcwatch_stop(&r);

	tap_is(r.status, 0, "smoke.exits_cleanly");
	/*
	 * Debian 12's arm64 kernel cannot attach BPF trampolines: auto
	 * must fall back to kprobes there, and say so.
	 */
	arm64 = !strcmp(uts.machine, "aarch64");
	snprintf(says, sizeof(says), "watching in %s mode",
		 arm64 ? "kprobe" : "fentry");
	if (!tap_ok(strstr(r.err, says) != NULL, "smoke.auto_picks_%s",
		    arm64 ? "kprobe" : "fentry"))
		tap_diag("  stderr: %s", r.err);
	if (arm64)
		tap_ok(strstr(r.err, "cannot attach BPF trampolines: kprobes "
			      "instead of fentry") != NULL,
		       "smoke.says_why_kprobes");
	ev = find_event(&r, "shm_create", "id", id, 0);
	tap_is(jint(ev, "size"), 3 * 4096, "smoke.shm_create.size");
	tap_ok(refused < 0 && err == EINVAL, "smoke.existing_smaller_refused");
	ev = find_event(&r, "shm_create", "err", EINVAL, 0);
	tap_ok(ev && !strcmp(jstr(ev, "reason"), "existing_smaller"),
	       "smoke.shm_create.existing_smaller");
	ev = find_event(&r, "shmat", "id", id, 0);
	tap_is(jint(ev, "size"), 3 * 4096, "smoke.shmat.size");
	tap_is_u(juint(ev, "raddr"), (unsigned long)at, "smoke.shmat.raddr");
	ev = find_event(&r, "shmctl", "id", id, 0);
	tap_ok(ev && !strcmp(jstr(ev, "cmd_name"), "IPC_RMID"),
	       "smoke.shmctl.rmid_through_the_syscall_hook");
	ev = find_event(&r, "shm_destroy", "id", id, 0);
	tap_ok(ev && !strcmp(jstr(ev, "cause"), "last_detach"),
	       "smoke.shm_destroy.cause");
	ev = find_event(&r, "sem_block", "pid", sleeper, 0);
	tap_is(jint(ev, "sem_op"), -1, "smoke.sem_block.operation");
	ev = find_event(&r, "sem_wake", "pid", sleeper, 0);
	tap_ok(ev && jint(ev, "slept_ns") > 0, "smoke.sem_wake.slept");
	ipcwatch_free(&r);
	tap_is(bpf_prog_count(), before, "smoke.nothing_left_loaded");
	return tap_done();
}
