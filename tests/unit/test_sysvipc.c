// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc readers of user/sysvipc.c on fixtures (tests/unit/fixtures),
 * and the inputs the fuzz targets found or suggested.
 */
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysvipc.h"

static FILE *fixture(const char *rel)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	return f;
}

static void sysvipc_tables_of_the_fixture(void **state)
{
	FILE *f = fixture("proc/sysvipc/shm");
	struct shm_row *shm;
	struct sem_row *sem;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(parse_shm_table(f, "shm", &shm, &n, err, sizeof(err)),
			 0);
	fclose(f);
	assert_int_equal(n, 3);
	assert_int_equal(shm[0].key, 41244);
	assert_int_equal(shm[0].mode, 01640);
	assert_int_equal(shm[0].nattch, 2);
	assert_int_equal(shm[1].cpid, 999999);
	assert_int_equal(shm[2].id, 3);
	assert_int_equal(shm[2].rss, 8192);
	free(shm);

	f = fixture("proc/sysvipc/sem");
	assert_int_equal(parse_sem_table(f, "sem", &sem, &n, err, sizeof(err)),
			 0);
	fclose(f);
	assert_int_equal(n, 1);
	assert_int_equal(sem[0].key, 1508);
	assert_int_equal(sem[0].nsems, 3);
	assert_int_equal(sem[0].ctime, 1796280000);
	/* parsing reads no values: that is semctl() */
	assert_false(sem[0].values_known);
	assert_null(sem[0].val);
	free_sem_rows(sem, n);
}

/* A table without its header used to return 0 and leave the rows unset. */
static void sysvipc_empty_table_is_an_error(void **state)
{
	struct shm_row *shm = NULL;
	struct sem_row *sem = NULL;
	char err[256];
	size_t n = 0;

	(void)state;
	sysvipc_proc_root = FIXTURES "/empty";
	errno = 0;
	assert_int_equal(read_shm_rows(&shm, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/empty/sysvipc/shm: empty"));
	errno = 0;
	assert_int_equal(read_sem_rows(&sem, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/empty/sysvipc/sem: empty"));
	/* and a table that is not there says why */
	sysvipc_proc_root = FIXTURES "/none";
	assert_int_equal(read_shm_rows(&shm, &n, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read "));
	sysvipc_proc_root = "/proc";
}

static int pid_stat(const char *text, unsigned long long *ticks)
{
	/* a copy exactly as long as the text: ASan sees a read past it */
	char *line = strdup(text);
	int ret;

	assert_non_null(line);
	ret = parse_pid_stat(line, ticks);
	free(line);
	return ret;
}

static void sysvipc_pid_stat_lines(void **state)
{
	unsigned long long ticks = 0;

	(void)state;
	assert_int_equal(pid_stat("7 (cat) R 1 7 7 0 -1 4194304 98 0 0 0 0 0 "
				  "0 0 20 0 1 0 3911480 3133440", &ticks), 0);
	assert_int_equal(ticks, 3911480);
	assert_int_equal(pid_stat("7 (a) b) Z 1 7 7", &ticks), -ESRCH);
	assert_int_equal(pid_stat("7 cat", &ticks), -ESRCH);
	assert_int_equal(pid_stat("7 (cat) S 1 7", &ticks), -EINVAL);
	/* the proc_text fuzz target's: ')' last, its state read past the end */
	assert_int_equal(pid_stat("20292 (cat b) )", &ticks), -EINVAL);
	assert_int_equal(pid_stat("1 (x) ", &ticks), -EINVAL);
}

/*
 * A process may name itself "a\nb": its stat is then two lines, and
 * reading one made it look gone, its segments orphans to reap.
 */
static void sysvipc_command_with_a_newline(void **state)
{
	(void)state;
	sysvipc_proc_root = FIXTURES "/proc";
	/* btime 1796270000 + 1000 ticks */
	assert_true(process_alive_since(4242, 1796280000));
	/* started after the segment: a reused pid */
	assert_false(process_alive_since(4242, 1796270000));
	assert_false(process_alive_since(4243, 1796280000));	/* zombie */
	assert_false(process_alive_since(4244, 1796280000));	/* gone */
	sysvipc_proc_root = "/proc";
}

static void sysvipc_msg_table_of_the_fixture(void **state)
{
	FILE *f = fixture("proc/sysvipc/msg");
	struct msg_row *msg;
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(parse_msg_table(f, "msg", &msg, &n, err, sizeof(err)),
			 0);
	fclose(f);
	assert_int_equal(n, 2);
	assert_int_equal(msg[0].id, 0);
	assert_int_equal(msg[0].mode, 0644);
	assert_int_equal(msg[0].cbytes, 12);
	assert_int_equal(msg[0].qnum, 2);
	assert_int_equal(msg[0].lspid, 4242);
	assert_int_equal(msg[0].uid, 1000);
	assert_int_equal(msg[0].stime, 1796280010);
	assert_int_equal(msg[1].key, 305419);
	assert_int_equal(msg[1].ctime, 1796280005);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sysvipc_tables_of_the_fixture),
		cmocka_unit_test(sysvipc_empty_table_is_an_error),
		cmocka_unit_test(sysvipc_pid_stat_lines),
		cmocka_unit_test(sysvipc_command_with_a_newline),
		cmocka_unit_test(sysvipc_msg_table_of_the_fixture),
	};

	return cmocka_run_group_tests_name("sysvipc", tests, NULL, NULL);
}
