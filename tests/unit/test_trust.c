// SPDX-License-Identifier: GPL-2.0
/*
 * trust_file(): sshd's StrictModes for the policy and --alert-exec. The
 * trusted cases need a directory only root can write, so this runs as
 * root (make check does) under /run, and fails, never skips, otherwise.
 */
#define _GNU_SOURCE
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trust.h"

static char base[64];

static void make_file(const char *path, mode_t mode)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[rule a]\nmax_segments = 1\n", 26), 26);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static char *at(const char *name)
{
	static char path[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", base, name);
	return path[i];
}

/* trust_file()'s answer: "" when trusted, else its error line */
static const char *verdict(const char *path, bool exec)
{
	static char err[1024];

	if (!trust_file(path, exec, err, sizeof(err)))
		return "";
	return err;
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_trust: needs root (a directory only root "
			"can write)\n");
		return -1;
	}
	snprintf(base, sizeof(base), "/run/ipcw-trust-XXXXXX");
	if (!mkdtemp(base) || chmod(base, 0755))
		return -1;
	make_file(at("policy.ini"), 0644);
	make_file(at("alert"), 0755);
	assert_int_equal(mkdir(at("open"), 0777), 0);
	assert_int_equal(chmod(at("open"), 0777), 0);
	assert_int_equal(mkdir(at("sticky"), 01777), 0);
	assert_int_equal(chmod(at("sticky"), 01777), 0);
	make_file(at("open/policy.ini"), 0644);
	make_file(at("sticky/policy.ini"), 0644);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void trust_root_file_in_root_dirs(void **state)
{
	(void)state;
	assert_string_equal(verdict(at("policy.ini"), false), "");
	assert_string_equal(verdict(at("alert"), true), "");
}

static void trust_file_writable_by_others(void **state)
{
	char want[256];

	(void)state;
	make_file(at("group.ini"), 0664);
	snprintf(want, sizeof(want),
		 "%s: file writable by group or others (mode 0664)",
		 at("group.ini"));
	assert_string_equal(verdict(at("group.ini"), false), want);
	make_file(at("other.ini"), 0602);
	snprintf(want, sizeof(want),
		 "%s: file writable by group or others (mode 0602)",
		 at("other.ini"));
	assert_string_equal(verdict(at("other.ini"), false), want);
}

static void trust_file_owned_by_user(void **state)
{
	char want[256];

	(void)state;
	make_file(at("user.ini"), 0644);
	assert_int_equal(chown(at("user.ini"), 1000, 1000), 0);
	snprintf(want, sizeof(want), "%s: file owned by uid 1000, not root",
		 at("user.ini"));
	assert_string_equal(verdict(at("user.ini"), false), want);
}

static void trust_directory_writable_by_others(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want),
		 "%s: directory writable by group or others (mode 0777)",
		 at("open"));
	assert_string_equal(verdict(at("open/policy.ini"), false), want);
	/* sticky is no excuse: /tmp is refused too */
	snprintf(want, sizeof(want),
		 "%s: directory writable by group or others (mode 1777)",
		 at("sticky"));
	assert_string_equal(verdict(at("sticky/policy.ini"), false), want);
}

static void trust_directory_owned_by_user(void **state)
{
	char want[256];

	(void)state;
	assert_int_equal(mkdir(at("home"), 0755), 0);
	make_file(at("home/policy.ini"), 0644);
	assert_int_equal(chown(at("home"), 1000, 1000), 0);
	snprintf(want, sizeof(want), "%s: directory owned by uid 1000, not root",
		 at("home"));
	assert_string_equal(verdict(at("home/policy.ini"), false), want);
}

static void trust_symlinks_both_ways(void **state)
{
	char want[256];

	(void)state;
	/* a trusted link to a file others can replace */
	assert_int_equal(symlink(at("open/policy.ini"), at("to-open.ini")), 0);
	snprintf(want, sizeof(want),
		 "%s: directory writable by group or others (mode 0777)",
		 at("open"));
	assert_string_equal(verdict(at("to-open.ini"), false), want);
	/* a link others can replace, to a trusted file */
	assert_int_equal(symlink(at("policy.ini"), at("open/to-root.ini")), 0);
	assert_string_equal(verdict(at("open/to-root.ini"), false), want);
}

static void trust_exec_needs_x(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "%s: not executable", at("policy.ini"));
	assert_string_equal(verdict(at("policy.ini"), true), want);
	snprintf(want, sizeof(want), "%s: not a regular file", base);
	assert_string_equal(verdict(base, false), want);
}

static void trust_missing_and_relative(void **state)
{
	char want[256], cwd[256];

	(void)state;
	snprintf(want, sizeof(want), "%s: No such file or directory",
		 at("none.ini"));
	assert_string_equal(verdict(at("none.ini"), false), want);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(base), 0);
	assert_string_equal(verdict("policy.ini", false), "");
	assert_int_equal(chdir(at("open")), 0);
	snprintf(want, sizeof(want),
		 "%s: directory writable by group or others (mode 0777)",
		 at("open"));
	assert_string_equal(verdict("policy.ini", false), want);
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trust_root_file_in_root_dirs),
		cmocka_unit_test(trust_file_writable_by_others),
		cmocka_unit_test(trust_file_owned_by_user),
		cmocka_unit_test(trust_directory_writable_by_others),
		cmocka_unit_test(trust_directory_owned_by_user),
		cmocka_unit_test(trust_symlinks_both_ways),
		cmocka_unit_test(trust_exec_needs_x),
		cmocka_unit_test(trust_missing_and_relative),
	};

	return cmocka_run_group_tests_name("trust", tests, setup, teardown);
}
