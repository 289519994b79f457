// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "top_view.h"

#define NS 4026531839u

/* Three segments: (id, owner, size, nattch, creator) */
static void fill(struct ipc_state *st)
{
	static const struct { int id; uint32_t uid; uint64_t size;
			      uint64_t nattch; const char *comm; } rows[] = {
		{ 5, 1000, 1 << 20, 1, "postgres" },
		{ 2, 0, 64 << 20, 0, "" },
		{ 9, 1000, 4096, 3, "redis" },
	};
	struct ipcw_event e;
	size_t i;

	state_init(st, NS);
	st->limits.shmmax = 128 << 20;
	st->limits.page_size = 4096;
	st->limits.shmmni = 4096;
	for (i = 0; i < 3; i++) {
		memset(&e, 0, sizeof(e));
		e.type = IPCW_SHM_CREATE;
		e.ipcns = NS;
		e.uid = rows[i].uid;
		e.pid = 42;
		e.shm_create.id = rows[i].id;
		e.shm_create.size = rows[i].size;
		e.shm_create.key = 0x1000 + rows[i].id;
		strcpy(e.comm, rows[i].comm);
		state_apply(st, &e);
		state_find_seg(st, rows[i].id)->row.nattch = rows[i].nattch;
	}
	/* segment 2: its creator is gone and nothing is attached */
	state_find_seg(st, 2)->creator_alive = false;
}

static void view_sorts_by_any_column(void **state)
{
	struct ipc_state st;
	struct view_opts o = { .sort = COL_SIZE };
	size_t order[3];

	(void)state;
	fill(&st);
	assert_int_equal(view_seg_order(&st, &o, order), 3);
	assert_int_equal(st.segs[order[0]].row.id, 9);
	assert_int_equal(st.segs[order[2]].row.id, 2);
	o.reverse = true;
	view_seg_order(&st, &o, order);
	assert_int_equal(st.segs[order[0]].row.id, 2);
	o.reverse = false;
	o.sort = COL_NATTCH;
	view_seg_order(&st, &o, order);
	assert_int_equal(st.segs[order[0]].row.id, 2);
	o.sort = COL_COMMAND;
	view_seg_order(&st, &o, order);
	assert_string_equal(st.segs[order[2]].creator_comm, "redis");
	o.sort = COL_STATUS;
	view_seg_order(&st, &o, order);
	assert_int_equal(st.segs[order[2]].row.id, 2);	/* orphaned last */
	state_free(&st);
}

static void view_filters_by_owner(void **state)
{
	struct ipc_state st;
	struct view_opts o = { .filter_owner = true, .owner = 1000 };
	size_t order[3];

	(void)state;
	fill(&st);
	assert_int_equal(view_seg_order(&st, &o, order), 2);
	assert_int_equal(st.segs[order[0]].row.id, 5);
	assert_int_equal(st.segs[order[1]].row.id, 9);
	state_free(&st);
}

static void view_column_names_round_trip(void **state)
{
	enum seg_column c;
	int i;

	(void)state;
	for (i = 0; i < COL_MAX; i++) {
		assert_int_equal(parse_seg_column(seg_column_name(i), &c), 0);
		assert_int_equal(c, i);
	}
	assert_int_equal(parse_seg_column("bogus", &c), -1);
}

/*
 * The sort columns the man page lists (the paragraph of -s, --sort) are
 * exactly the ones top knows, in both directions.
 */
static void view_column_names_equal_man_page(void **state)
{
	bool listed[COL_MAX] = { false };
	char line[512], words[2048] = "";
	bool in_sort = false;
	enum seg_column c;
	char *w, *save;
	int i, n = 0;
	FILE *f;

	(void)state;
	f = fopen(MANPAGE, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "\\-\\-sort =")) {
			in_sort = true;
			continue;
		}
		if (in_sort && line[0] == '.')
			break;
		if (in_sort)
			strncat(words, line, sizeof(words) - strlen(words) - 1);
	}
	fclose(f);
	assert_true(in_sort);
	for (w = strtok_r(words, " ,.\n", &save); w;
	     w = strtok_r(NULL, " ,.\n", &save)) {
		if (!strcmp(w, "or"))
			continue;
		if (parse_seg_column(w, &c))
			fail_msg("man page lists '%s', top has no such column", w);
		assert_false(listed[c]);
		listed[c] = true;
		n++;
	}
	for (i = 0; i < COL_MAX; i++)
		if (!listed[i])
			fail_msg("column '%s' missing from the man page",
				 seg_column_name(i));
	assert_int_equal(n, COL_MAX);
}

static char *text;
static size_t text_len;

static void collect(void *ctx, const char *line, bool highlight)
{
	FILE *f = ctx;

	fprintf(f, "%s%s\n", highlight ? "*" : " ", line);
}

static void view_segment_rows(void **state)
{
	struct ipc_state st;
	struct view_opts o = { .sort = COL_ID, .now_s = 1796280060 };
	FILE *f = open_memstream(&text, &text_len);
	size_t i;

	(void)state;
	fill(&st);
	for (i = 0; i < st.nsegs; i++)
		st.segs[i].row.ctime = 1796280000;
	view_segments(&st, &o, collect, f);
	fclose(f);
	assert_non_null(strstr(text, "*ID         KEY        OWNER"));
	/* the orphan is highlighted, its creator unknown */
	assert_non_null(strstr(text, "*2          0x00001002 0      42      ?"
				     "                    64 MiB  50.00%      0 "
				     "orphaned               60s     -     -"));
	assert_non_null(strstr(text, " 5          0x00001005 1000   42      "
				     "postgres              1 MiB   0.78%      1 "
				     "-  "));
	free(text);
	state_free(&st);
}

static void view_json_document(void **state)
{
	struct ipc_state st;
	struct view_opts o = { .mode = "tracepoint" };
	FILE *f = open_memstream(&text, &text_len);
	struct json_writer *jw = jw_new(f);

	(void)state;
	fill(&st);
	view_json(jw, &st, &o);
	jw_destroy(jw);
	fclose(f);
	assert_non_null(strstr(text, "{\"type\":\"top\","));
	assert_non_null(strstr(text, "\"segments\":3,"));
	assert_non_null(strstr(text, "\"orphaned_segments\":1,"
				     "\"orphaned_bytes\":67108864,"));
	assert_non_null(strstr(text, "{\"id\":5,\"key\":4101,\"size\":1048576,"));
	assert_non_null(strstr(text, "\"creator_comm\":\"postgres\""));
	assert_non_null(strstr(text, "\"sem\":[],\"msg\":[],\"recent\":[]}\n"));
	free(text);
	state_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(view_sorts_by_any_column),
		cmocka_unit_test(view_filters_by_owner),
		cmocka_unit_test(view_column_names_round_trip),
		cmocka_unit_test(view_column_names_equal_man_page),
		cmocka_unit_test(view_segment_rows),
		cmocka_unit_test(view_json_document),
	};

	return cmocka_run_group_tests_name("top_view", tests, NULL, NULL);
}
