// SPDX-License-Identifier: GPL-2.0
/*
 * --alert-exec as the daemon runs it: at most NOTIFY_MAX_CHILDREN at a
 * time, the rest skipped and counted; those past the timeout killed and
 * counted; nothing a program prints reaches the daemon's stdout.
 * /usr/bin/yes stands for a program that never ends and prints.
 */
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "notify.h"

#define ALERT_PROG "/usr/bin/yes"

/* Run @n's alerts with stdout in a file; returns that file. */
static FILE *stdout_to_file(int *saved)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fflush(stdout);
	*saved = dup(STDOUT_FILENO);
	assert_true(*saved >= 0);
	assert_true(dup2(fileno(f), STDOUT_FILENO) >= 0);
	return f;
}

static void stdout_back(int saved)
{
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
}

static void alert_exec_bounded_skipped_and_killed(void **state)
{
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct policy_rule r = { .name = "db" };
	struct notifier n;
	char line[4096];
	int saved, i, lines = 0, alerts = 0, timeouts = 0, other = 0;
	uint64_t deadline;
	FILE *out;

	(void)state;
	if (access(ALERT_PROG, X_OK))
		fail_msg("%s is needed (coreutils)", ALERT_PROG);
	out = stdout_to_file(&saved);
	notify_init(&n, true, ALERT_PROG, 1);
	n.syslog = false;
	for (i = 0; i < NOTIFY_MAX_CHILDREN + 3; i++)
		notify_alert(&n, ALERT_SEGMENT, &r, 4026531839u,
			     SCOPE_UID, 1000, i, 8192, 4096);
	assert_int_equal(n.exec_started, NOTIFY_MAX_CHILDREN);
	assert_int_equal(n.exec_skipped, 3);
	assert_int_equal(n.children, NOTIFY_MAX_CHILDREN);

	/* a clock past the timeout: every one is killed, with its group */
	notify_reap_children(&n, mono_ns() + 2000000000ULL);
	assert_int_equal(n.exec_timeouts, NOTIFY_MAX_CHILDREN);
	deadline = mono_ns() + 10000000000ULL;
	while (n.children && mono_ns() < deadline) {
		nanosleep(&tick, NULL);
		notify_reap_children(&n, mono_ns() + 2000000000ULL);
	}
	assert_int_equal(n.children, 0);
	assert_int_equal(n.exec_timeouts, NOTIFY_MAX_CHILDREN);
	stdout_back(saved);

	/* the daemon's records only: none of the programs' "y" lines */
	rewind(out);
	while (fgets(line, sizeof(line), out)) {
		lines++;
		if (strstr(line, "\"type\":\"alert\""))
			alerts++;
		else if (strstr(line, "\"type\":\"alert_exec_timeout\""))
			timeouts++;
		else
			other++;
	}
	fclose(out);
	assert_int_equal(alerts, NOTIFY_MAX_CHILDREN + 3);
	assert_int_equal(timeouts, NOTIFY_MAX_CHILDREN);
	assert_int_equal(other, 0);
	assert_int_equal(lines, 2 * NOTIFY_MAX_CHILDREN + 3);
}

/* What one record printed, text or JSON. */
static void rmid_output(const struct ipcw_rmid_decision *d, bool json,
			const char *cgroup, char *buf, size_t len)
{
	struct notifier n;
	int saved;
	size_t got;
	FILE *out;

	out = stdout_to_file(&saved);
	notify_init(&n, json, NULL, 1);
	n.syslog = false;
	notify_rmid(&n, d, cgroup);
	stdout_back(saved);
	rewind(out);
	got = fread(buf, 1, len - 1, out);
	buf[got] = '\0';
	fclose(out);
}

/* The guard's record names who removed and what it would have broken. */
static void rmid_record_names_both(void **state)
{
	struct ipcw_rmid_decision d = {
		.cgroup = 4242, .pid = 321, .tid = 322, .uid = 0, .gid = 0,
		.ipcns = 4026531839u, .id = 7, .key = 0x5432,
		.owner_uid = 999, .cuid = 999, .object = IPCW_RMID_SEM,
		.in_use = IPCW_USE_WAITERS | IPCW_USE_LAST_OP, .waiters = 2,
		.nsems = 17, .last_pid = 100, .last_semnum = 3,
		.enforced = 1, .err = 1, .comm = "systemd-logind",
	};
	char out[2048];

	(void)state;
	rmid_output(&d, false, "/sys/fs/cgroup/system.slice", out,
		    sizeof(out));
	assert_string_equal(out,
		"DENIED EPERM: IPC_RMID of semaphore set id 7 key 0x00005432 "
		"(owner uid 999, creator uid 999) in use: 2 waiters, last "
		"operator pid 100 alive (semaphore 3); by pid 321 "
		"(systemd-logind) uid 0 cgroup /sys/fs/cgroup/system.slice "
		"(id 4242) (guard_rmid = deny)\n");

	d.object = IPCW_RMID_SHM;
	d.in_use = IPCW_USE_ATTACHED | IPCW_USE_CREATOR;
	d.nattch = 3;
	d.creator_pid = 99;
	d.last_pid = 100;
	d.enforced = 0;
	d.err = 0;
	rmid_output(&d, false, "", out, sizeof(out));
	assert_string_equal(out,
		"AUDIT (allowed): IPC_RMID of shared memory segment id 7 key "
		"0x00005432 (owner uid 999, creator uid 999) in use: 3 "
		"attached, creator pid 99 alive; by pid 321 (systemd-logind) "
		"uid 0 cgroup 4242 (guard_rmid = audit)\n");

	rmid_output(&d, true, "", out, sizeof(out));
	assert_non_null(strstr(out, "{\"type\":\"rmid_audit\","));
	assert_non_null(strstr(out, "\"guard\":\"audit\",\"enforced\":false,"
			       "\"err\":0,\"pid\":321,\"tid\":322,"
			       "\"comm\":\"systemd-logind\",\"uid\":0,"
			       "\"gid\":0,\"cgroup_id\":4242,\"cgroup\":\"\","
			       "\"ipcns\":4026531839,\"object\":\"shm\","
			       "\"id\":7,\"key\":21554,\"owner_uid\":999,"
			       "\"cuid\":999,\"attached\":true,"
			       "\"has_waiters\":false,\"creator_alive\":true,"
			       "\"last_op_alive\":false,\"nattch\":3,"
			       "\"cpid\":99,\"lpid\":100}\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alert_exec_bounded_skipped_and_killed),
		cmocka_unit_test(rmid_record_names_both),
	};

	return cmocka_run_group_tests_name("notify", tests, NULL, NULL);
}
