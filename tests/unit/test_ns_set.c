// SPDX-License-Identifier: GPL-2.0
/*
 * The namespaces top -A watches, in a /proc tree made here: adopted when
 * found, reported gone with what they held and what their teardown
 * freed, never reported twice.
 */
#define _GNU_SOURCE
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ns_set.h"

static char root[64];

static void put(const char *rel, const char *text, bool link)
{
	char path[256], dir[256], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	if (link) {
		assert_int_equal(symlink(text, path), 0);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_tree(uint32_t own)
{
	char link[64];

	snprintf(root, sizeof(root), "/tmp/ns-set-test-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(link, sizeof(link), "ipc:[%u]", own);
	put("self/ns/ipc", link, true);
	put("10/ns/ipc", link, true);
	put("sys/kernel/shmmax", "1000000\n", false);
	put("sys/kernel/shmall", "2000\n", false);
	put("sys/kernel/shmmni", "64\n", false);
	put("sys/kernel/shm_rmid_forced", "0\n", false);
	put("sys/kernel/sem", "250 32000 32 128\n", false);
	put("sys/kernel/msgmax", "8192\n", false);
	put("sys/kernel/msgmnb", "16384\n", false);
	put("sys/kernel/msgmni", "32\n", false);
	put("sysvipc/shm", "key shmid perms size cpid lpid nattch uid gid "
	    "cuid cgid atime dtime ctime rss swap\n"
	    "1 7 600 4096 99999 0 0 0 0 0 0 0 0 1796280000 0 0\n"
	    "2 8 600 8192 99999 0 0 0 0 0 0 0 0 1796280000 0 0\n", false);
	put("sysvipc/sem", "key semid perms nsems uid gid cuid cgid otime "
	    "ctime\n", false);
	put("sysvipc/msg", "key msqid perms cbytes qnum lspid lrpid uid gid "
	    "cuid cgid stime rtime ctime\n"
	    "3 0 600 5 1 0 0 0 0 0 0 0 0 1796280000\n", false);
}

static void ns_set_adopts_and_reports_gone(void **state)
{
	struct ns_set set = { .all = true };
	struct ipcw_event e = { .type = IPCW_SHM_DESTROY };
	struct stat st;
	char err[256], cmd[128];
	uint32_t own;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/ipc", &st), 0);
	own = (uint32_t)st.st_ino;
	make_tree(own);
	sysvipc_proc_root = root;
	assert_int_equal(ns_sync(&set, err, sizeof(err)), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.st[0]->ipcns, own);
	assert_int_equal(set.st[0]->nsegs, 2);
	assert_int_equal(set.st[0]->limits.shmmni, 64);
	assert_int_equal(set.st[0]->nmsgs, 1);
	assert_int_equal(set.st[0]->ns.nprocs, 1);
	assert_ptr_equal(ns_state(&set, own), set.st[0]);
	assert_null(ns_state(&set, own + 1));

	/* the teardown's destruction of one segment, seen as an event */
	e.ipcns = own;
	e.shm_destroy.id = 7;
	e.shm_destroy.size = 4096;
	e.shm_destroy.cause = IPCW_DESTROY_NS_EXIT;
	state_apply(set.st[0], &e);
	assert_int_equal(set.st[0]->nsegs, 1);

	/* no process holds it any more */
	snprintf(cmd, sizeof(cmd), "rm %s/10/ns/ipc", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ns_sync(&set, err, sizeof(err)), 0);
	sysvipc_proc_root = "/proc";
	assert_int_equal(set.n, 0);
	assert_int_equal(set.ngone, 1);
	assert_int_equal(set.gone[0].ipcns, own);
	/* one freed as the events said, one left when it went */
	assert_int_equal(set.gone[0].segments, 2);
	assert_int_equal(set.gone[0].bytes, 4096 + 8192);
	assert_int_equal(set.gone[0].msg_queues, 1);
	assert_int_equal(set.gone[0].sem_sets, 0);
	/* reported once */
	sysvipc_proc_root = root;
	assert_int_equal(ns_sync(&set, err, sizeof(err)), 0);
	sysvipc_proc_root = "/proc";
	assert_int_equal(set.ngone, 1);
	ns_set_free(&set);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ns_set_adopts_and_reports_gone),
	};

	return cmocka_run_group_tests_name("ns_set", tests, NULL, NULL);
}
