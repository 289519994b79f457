// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "state.h"
#include "sysvipc.h"

#define NS 4026531839u

static struct ipcw_event ev(uint32_t type)
{
	struct ipcw_event e;

	memset(&e, 0, sizeof(e));
	e.type = type;
	e.ipcns = NS;
	e.pid = e.tid = 321;
	e.uid = 1000;
	e.gid = 100;
	e.ts_ns = 1000;
	strcpy(e.comm, "postgres");
	return e;
}

static struct ipcw_event created(int id, uint64_t size)
{
	struct ipcw_event e = ev(IPCW_SHM_CREATE);

	e.shm_create.id = id;
	e.shm_create.key = 0x5432001;
	e.shm_create.size = size;
	e.shm_create.shmflg = IPC_CREAT | 0600;
	return e;
}

static void state_create_attach_detach(void **state)
{
	struct ipc_state st;
	struct ipcw_event e;
	struct seg *s;

	(void)state;
	state_init(&st, NS);
	e = created(7, 16 << 20);
	state_apply(&st, &e);
	s = state_find_seg(&st, 7);
	assert_non_null(s);
	assert_string_equal(s->creator_comm, "postgres");
	assert_int_equal(s->row.cpid, 321);
	assert_int_equal(s->row.uid, 1000);
	assert_int_equal(s->row.size, 16 << 20);
	assert_int_equal(s->row.mode, 0600);

	e = ev(IPCW_SHM_ATTACH);
	e.nattch.id = 7;
	e.nattch.nattch = 2;
	state_apply(&st, &e);
	assert_int_equal(state_find_seg(&st, 7)->row.nattch, 2);
	e.type = IPCW_SHM_DETACH;
	e.nattch.nattch = 1;
	state_apply(&st, &e);
	assert_int_equal(state_find_seg(&st, 7)->row.nattch, 1);
	assert_int_equal(st.events, 3);
	state_free(&st);
}

static void state_rmid_lock_destroy(void **state)
{
	struct ipc_state st;
	struct ipcw_event e;

	(void)state;
	state_init(&st, NS);
	e = created(3, 4096);
	state_apply(&st, &e);
	e = ev(IPCW_SHMCTL);
	e.shmctl.id = 3;
	e.shmctl.cmd = SHM_LOCK;
	state_apply(&st, &e);
	assert_true(seg_locked(state_find_seg(&st, 3)));
	e.shmctl.cmd = IPC_RMID;
	state_apply(&st, &e);
	assert_true(seg_dest(state_find_seg(&st, 3)));
	assert_int_equal(state_find_seg(&st, 3)->row.key, IPC_PRIVATE);
	/* a failed shmctl changes nothing */
	e.shmctl.cmd = SHM_UNLOCK;
	e.shmctl.ret = -1;
	state_apply(&st, &e);
	assert_true(seg_locked(state_find_seg(&st, 3)));

	e = ev(IPCW_SHM_DESTROY);
	e.shm_destroy.id = 3;
	e.shm_destroy.cause = IPCW_DESTROY_LAST_DETACH;
	state_apply(&st, &e);
	assert_null(state_find_seg(&st, 3));
	assert_int_equal(st.nrecent, 1);
	assert_int_equal(st.recent[0].type, IPCW_SHM_DESTROY);
	state_free(&st);
}

static void state_refusals_counted_per_interval(void **state)
{
	struct ipc_state st;
	struct ipcw_event e = created(-1, 1);

	(void)state;
	state_init(&st, NS);
	e.shm_create.err = 22;
	e.shm_create.reason = IPCW_CREATE_OVER_SHMMAX;
	state_apply(&st, &e);
	state_apply(&st, &e);
	assert_int_equal(st.refused[IPCW_CREATE_OVER_SHMMAX], 2);
	assert_int_equal(st.nsegs, 0);
	state_interval_reset(&st);
	assert_int_equal(st.refused[IPCW_CREATE_OVER_SHMMAX], 0);
	assert_int_equal(st.refused_total[IPCW_CREATE_OVER_SHMMAX], 2);
	assert_int_equal(st.nrecent, 2);
	state_free(&st);
}

static void state_recent_keeps_the_newest(void **state)
{
	struct ipc_state st;
	struct ipcw_event e = ev(IPCW_SHM_DESTROY);
	int i;

	(void)state;
	state_init(&st, NS);
	for (i = 0; i < RECENT_MAX + 5; i++) {
		e.shm_destroy.id = i;
		state_apply(&st, &e);
	}
	assert_int_equal(st.nrecent, RECENT_MAX);
	assert_int_equal(st.recent[0].shm_destroy.id, 5);
	assert_int_equal(st.recent[RECENT_MAX - 1].shm_destroy.id,
			 RECENT_MAX + 4);
	state_free(&st);
}

static void state_waiters(void **state)
{
	struct ipc_state st;
	struct ipcw_event e = ev(IPCW_SEM_BLOCK);

	(void)state;
	state_init(&st, NS);
	e.sem_block.id = 9;
	e.sem_block.sem_num = 2;
	e.sem_block.sem_op = -1;
	state_apply(&st, &e);
	e.tid = 322;
	e.sem_block.zcnt = 1;
	state_apply(&st, &e);
	assert_int_equal(st.nwaiters, 2);
	e = ev(IPCW_SEM_WAKE);
	state_apply(&st, &e);
	assert_int_equal(st.nwaiters, 1);
	assert_int_equal(st.waiters[0].tid, 322);
	assert_true(st.waiters[0].zcnt);
	state_free(&st);
}

static void state_ignores_other_namespaces(void **state)
{
	struct ipc_state st;
	struct ipcw_event e = created(1, 4096);

	(void)state;
	state_init(&st, NS);
	e.ipcns = NS - 1;
	state_apply(&st, &e);
	assert_int_equal(st.nsegs, 0);
	assert_int_equal(st.events, 0);
	state_free(&st);
}

static void state_segments_stay_sorted(void **state)
{
	struct ipc_state st;
	struct ipcw_event e;
	int ids[] = { 50, 3, 999, 17, 4 }, i;

	(void)state;
	state_init(&st, NS);
	for (i = 0; i < 5; i++) {
		e = created(ids[i], 4096);
		state_apply(&st, &e);
	}
	assert_int_equal(st.nsegs, 5);
	for (i = 1; i < 5; i++)
		assert_true(st.segs[i - 1].row.id < st.segs[i].row.id);
	for (i = 0; i < 5; i++)
		assert_non_null(state_find_seg(&st, ids[i]));
	assert_null(state_find_seg(&st, 5));
	state_free(&st);
}

/* The fixture has ids 0, 1, 3; the stream knew 0 (nattch 1) and 2. */
static void state_resync_counts_corrections(void **state)
{
	struct ipc_state st;
	struct ipcw_event e;
	char err[256];

	(void)state;
	sysvipc_proc_root = FIXTURES "/proc";
	state_init(&st, NS);
	e = created(0, 1048576);
	e.shm_create.key = 41244;
	e.pid = 100;
	e.uid = e.gid = 0;
	state_apply(&st, &e);
	e = created(2, 4096);
	state_apply(&st, &e);
	assert_int_equal(state_resync(&st, err, sizeof(err)), 0);
	/* 0 differs (nattch, mode), 1 and 3 missing, 2 extra */
	assert_int_equal(st.corrections, 4);
	assert_int_equal(st.nsegs, 3);
	assert_int_equal(state_find_seg(&st, 0)->row.nattch, 2);
	/* the command captured at creation survives the resync */
	assert_string_equal(state_find_seg(&st, 0)->creator_comm, "postgres");
	assert_null(state_find_seg(&st, 2));
	assert_true(seg_dest(state_find_seg(&st, 3)));
	assert_true(seg_locked(state_find_seg(&st, 3)));
	/* creator pid 999999 does not exist: orphaned, 64 KiB */
	{
		uint64_t count, bytes;

		state_orphans(&st, &count, &bytes);
		assert_int_equal(count, 1);
		assert_int_equal(bytes, 65536);
	}
	assert_int_equal(state_largest_seg(&st), 1048576);
	state_free(&st);
	sysvipc_proc_root = "/proc";
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(state_create_attach_detach),
		cmocka_unit_test(state_rmid_lock_destroy),
		cmocka_unit_test(state_refusals_counted_per_interval),
		cmocka_unit_test(state_recent_keeps_the_newest),
		cmocka_unit_test(state_waiters),
		cmocka_unit_test(state_ignores_other_namespaces),
		cmocka_unit_test(state_segments_stay_sorted),
		cmocka_unit_test(state_resync_counts_corrections),
	};

	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
