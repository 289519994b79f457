// SPDX-License-Identifier: GPL-2.0
/*
 * Finding IPC namespaces in a /proc tree made here, and reading one
 * through the setns() child: the tables it sends are the ones read in
 * this process.
 */
#define _GNU_SOURCE
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipcns.h"

static char root[64];

static void put_link(const char *rel, const char *target)
{
	char path[256], dir[256], *slash;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	assert_int_equal(symlink(target, path), 0);
}

static void ipcns_links(void **state)
{
	(void)state;
	assert_int_equal(ipcns_parse_link("ipc:[4026531839]"), 4026531839u);
	assert_int_equal(ipcns_parse_link("ipc:[4026531839]x"), 0);
	assert_int_equal(ipcns_parse_link("ipc:[4026531839"), 0);
	assert_int_equal(ipcns_parse_link("net:[4026531839]"), 0);
	assert_int_equal(ipcns_parse_link("ipc:[0]"), 0);
	assert_int_equal(ipcns_parse_link("ipc:[99999999999]"), 0);
	assert_int_equal(ipcns_parse_link("/dev/null"), 0);
}

static void ipcns_found_by_process_fd_and_mount(void **state)
{
	struct ipcns_list l;
	char err[256], path[256];
	FILE *f;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/ipcns-test-XXXXXX");
	assert_non_null(mkdtemp(root));
	put_link("7/ns/ipc", "ipc:[200]");
	put_link("5/ns/ipc", "ipc:[200]");
	put_link("1/ns/ipc", "ipc:[100]");
	put_link("7/fd/3", "ipc:[300]");
	put_link("7/fd/4", "/dev/null");
	put_link("5/fd/9", "ipc:[100]");	/* has a process: stays one */
	put_link("self/ns/ipc", "ipc:[200]");
	snprintf(path, sizeof(path), "%s/self/mountinfo", root);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "22 1 0:4 ipc:[400] /run/ipcns/db rw - nsfs nsfs rw\n"
		   "23 1 0:4 net:[500] /run/netns/x rw - nsfs nsfs rw\n"
		   "24 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n");
	fclose(f);

	sysvipc_proc_root = root;
	assert_int_equal(ipcns_discover(&l, err, sizeof(err)), 0);
	sysvipc_proc_root = "/proc";
	assert_int_equal(l.n, 4);
	assert_int_equal(l.ns[0].inum, 100);
	assert_int_equal(l.ns[0].via, IPCNS_VIA_PROCESS);
	assert_int_equal(l.ns[0].pid, 1);
	assert_int_equal(l.ns[1].inum, 200);
	assert_int_equal(l.ns[1].nprocs, 2);
	assert_int_equal(l.ns[1].pid, 5);	/* the lowest member */
	assert_true(l.ns[1].own);
	assert_false(l.ns[0].own);
	assert_int_equal(l.ns[2].via, IPCNS_VIA_FD);
	assert_int_equal(l.ns[2].nprocs, 0);
	snprintf(path, sizeof(path), "%s/7/fd/3", root);
	assert_string_equal(l.ns[2].path, path);
	assert_int_equal(l.ns[3].via, IPCNS_VIA_MOUNT);
	assert_string_equal(l.ns[3].path, "/run/ipcns/db");
	assert_ptr_equal(ipcns_find(&l, 300), &l.ns[2]);
	assert_null(ipcns_find(&l, 500));
	ipcns_list_free(&l);
	snprintf(path, sizeof(path), "rm -rf %s", root);
	assert_int_equal(system(path), 0);
}

/*
 * This process's own namespace, entered as if it were another's: the
 * child's answer equals the tables read here.
 */
static void ipcns_read_through_the_child(void **state)
{
	struct ipcns ns = { .via = IPCNS_VIA_PROCESS };
	struct ipcns_tables here, there;
	struct stat st;
	char err[256];
	unsigned int what = IPCNS_SHM | IPCNS_SEM | IPCNS_MSG | IPCNS_USAGE;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/ipc", &st), 0);
	ns.inum = (uint32_t)st.st_ino;
	snprintf(ns.path, sizeof(ns.path), "/proc/%d/ns/ipc", getpid());
	sysvipc_proc_root = FIXTURES "/proc";
	assert_int_equal(ipcns_read(NULL, what, &here, err, sizeof(err)), 0);
	assert_int_equal(ipcns_read(&ns, what, &there, err, sizeof(err)), 0);
	assert_int_equal(there.nshm, 3);
	assert_int_equal(there.nshm, here.nshm);
	assert_memory_equal(there.shm, here.shm, here.nshm * sizeof(*here.shm));
	assert_int_equal(there.nsem, 1);
	assert_int_equal(there.sem[0].nsems, here.sem[0].nsems);
	assert_int_equal(there.sem[0].key, 1508);
	assert_int_equal(there.nmsg, 2);
	assert_memory_equal(there.msg, here.msg, here.nmsg * sizeof(*here.msg));
	assert_int_equal(there.usage.segments, here.usage.segments);
	ipcns_tables_free(&here);
	ipcns_tables_free(&there);

	/* another namespace under the same path: refused, not read */
	ns.inum++;
	assert_int_equal(ipcns_read(&ns, what, &there, err, sizeof(err)),
			 -ESRCH);
	assert_non_null(strstr(err, "is gone"));
	/* a path that names nothing */
	snprintf(ns.path, sizeof(ns.path), "/proc/0/ns/ipc");
	assert_int_equal(ipcns_read(&ns, what, &there, err, sizeof(err)),
			 -ESRCH);
	sysvipc_proc_root = "/proc";
}

/*
 * Several namespaces by one child, in order: a bad one in the middle
 * answers its own error and stops none of the others.
 */
static void ipcns_read_many_in_order(void **state)
{
	struct ipcns good = { .via = IPCNS_VIA_PROCESS }, bad;
	const struct ipcns *ns[3] = { &good, &bad, &good };
	struct ipcns_tables t[3], here;
	struct stat st;
	char err[256];
	int ret[3];
	unsigned int what = IPCNS_SHM | IPCNS_SEM | IPCNS_MSG | IPCNS_USAGE;

	(void)state;
	assert_int_equal(stat("/proc/self/ns/ipc", &st), 0);
	good.inum = (uint32_t)st.st_ino;
	snprintf(good.path, sizeof(good.path), "/proc/%d/ns/ipc", getpid());
	bad = good;
	bad.inum++;
	sysvipc_proc_root = FIXTURES "/proc";
	assert_int_equal(ipcns_read(NULL, what, &here, err, sizeof(err)), 0);
	ipcns_read_many(ns, 3, what, t, ret);
	assert_int_equal(ret[0], 0);
	assert_int_equal(ret[1], -ESRCH);
	assert_int_equal(ret[2], 0);
	assert_int_equal(t[1].nshm, 0);
	assert_null(t[1].shm);
	for (int i = 0; i < 3; i += 2) {
		assert_int_equal(t[i].nshm, here.nshm);
		assert_memory_equal(t[i].shm, here.shm,
				    here.nshm * sizeof(*here.shm));
		assert_int_equal(t[i].nsem, here.nsem);
		assert_int_equal(t[i].nmsg, here.nmsg);
		ipcns_tables_free(&t[i]);
	}
	ipcns_tables_free(&here);
	/* none: no child */
	ipcns_read_many(ns, 0, what, t, ret);
	sysvipc_proc_root = "/proc";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipcns_links),
		cmocka_unit_test(ipcns_found_by_process_fd_and_mount),
		cmocka_unit_test(ipcns_read_through_the_child),
		cmocka_unit_test(ipcns_read_many_in_order),
	};

	return cmocka_run_group_tests_name("ipcns", tests, NULL, NULL);
}
