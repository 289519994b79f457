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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(alert_exec_bounded_skipped_and_killed),
	};

	return cmocka_run_group_tests_name("notify", tests, NULL, NULL);
}
