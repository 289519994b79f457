// SPDX-License-Identifier: GPL-2.0
/* The host-side parts of the pins: process identity, build ids, paths. */
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy_pins.h"

/* Field 22 of /proc/self/stat, split by hand after the last ')'. */
static unsigned long long own_start(void)
{
	char buf[1024], *p, *tok, *save = NULL;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;
	int field = 2;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	assert_non_null(p);
	for (tok = strtok_r(p + 1, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (++field == 22)
			return strtoull(tok, NULL, 10);
	fail();
	return 0;
}

static void pins_start_time_is_field_22(void **state)
{
	(void)state;
	assert_int_equal(pins_process_start(getpid()), own_start());
	assert_true(own_start() > 0);
}

static void pins_start_time_with_odd_command(void **state)
{
	char saved[32] = "";
	uint64_t before = pins_process_start(getpid());

	(void)state;
	prctl(PR_GET_NAME, saved);
	/* spaces and parentheses in the command must not shift fields */
	prctl(PR_SET_NAME, "a) (b c ) d");
	assert_int_equal(pins_process_start(getpid()), before);
	prctl(PR_SET_NAME, saved);
}

static void pins_start_time_of_gone_process(void **state)
{
	pid_t pid = fork();

	(void)state;
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	assert_int_equal(pins_process_start(pid), 0);
}

static void pins_holder_needs_pid_and_time(void **state)
{
	struct ipcw_pin_info info = { .pid = (uint32_t)getpid() };

	(void)state;
	assert_false(pins_holder_alive(&info));
	info.starttime = pins_process_start(getpid());
	assert_true(pins_holder_alive(&info));
	info.starttime++;	/* the pid reused by another process */
	assert_false(pins_holder_alive(&info));
}

static void pins_build_id_is_fnv1a(void **state)
{
	(void)state;
	assert_true(pins_build_id("", 0) == 0xcbf29ce484222325ULL);
	assert_true(pins_build_id("a", 1) == 0xaf63dc4c8601ec8cULL);
	assert_true(pins_build_id("ab", 2) != pins_build_id("ba", 2));
}

static void pins_refused_off_bpffs(void **state)
{
	char dir[] = "/tmp/ipcw-pins-XXXXXX", sub[64], err[256];
	struct ipcw_pin_info info;
	enum pins_state st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/ipcwatch", dir);
	assert_true(pins_find(sub, 1, &st, &info, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "is not on a BPF filesystem"));
	assert_non_null(strstr(err, dir));
	rmdir(dir);
}

static void pins_remove_takes_the_tree(void **state)
{
	char dir[] = "/tmp/ipcw-pins-XXXXXX", path[128];
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/links", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/links/policy_shm_alloc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/maps", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(pins_remove(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	/* nothing there: nothing to do */
	assert_int_equal(pins_remove(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pins_start_time_is_field_22),
		cmocka_unit_test(pins_start_time_with_odd_command),
		cmocka_unit_test(pins_start_time_of_gone_process),
		cmocka_unit_test(pins_holder_needs_pid_and_time),
		cmocka_unit_test(pins_build_id_is_fnv1a),
		cmocka_unit_test(pins_refused_off_bpffs),
		cmocka_unit_test(pins_remove_takes_the_tree),
	};

	return cmocka_run_group_tests_name("policy_pins", tests, NULL, NULL);
}
