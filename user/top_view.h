/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ipcwatch top` shows, as lines of text (for the terminal and for
 * batch mode) and as one JSON document per refresh. Reads the state,
 * never the kernel.
 */
#ifndef IPCWATCH_TOP_VIEW_H
#define IPCWATCH_TOP_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "json_writer.h"
#include "state.h"

enum seg_column {
	COL_ID, COL_KEY, COL_OWNER, COL_CPID, COL_COMMAND, COL_SIZE,
	COL_SHMMAX_SHARE, COL_NATTCH, COL_STATUS, COL_AGE, COL_ATTACHED,
	COL_DETACHED, COL_MAX,
};

enum top_screen { SCREEN_SEGMENTS, SCREEN_SEMAPHORES, SCREEN_RECENT };

struct view_opts {
	enum seg_column sort;
	bool reverse;
	bool filter_owner;
	uint32_t owner;		/* with filter_owner: only this uid */
	const char *mode;	/* collector mode, for the header */
	double interval_s;
	uint64_t now_ns;	/* monotonic, for ages of waits */
	int64_t now_s;		/* wall clock, for ages of segments */
	int64_t mono_to_real_ns;
};

/* Receives one line; @highlight for headers and warnings. */
typedef void (*line_fn)(void *ctx, const char *line, bool highlight);

const char *seg_column_name(enum seg_column col);	/* "size" */
/* Parse a column name: 0, or -1 if unknown. */
int parse_seg_column(const char *name, enum seg_column *col);

/* The summary lines above every screen. */
void view_header(const struct ipc_state *st, const struct view_opts *o,
		 line_fn emit, void *ctx);

/* The segment table, sorted and filtered, with its column header. */
void view_segments(const struct ipc_state *st, const struct view_opts *o,
		   line_fn emit, void *ctx);

/* Semaphore sets, their semaphores and the tasks asleep on them. */
void view_semaphores(const struct ipc_state *st, const struct view_opts *o,
		     line_fn emit, void *ctx);

/* System V message queues. */
void view_messages(const struct ipc_state *st, const struct view_opts *o,
		   line_fn emit, void *ctx);

/* Recent refusals and destructions, newest first. */
void view_recent(const struct ipc_state *st, const struct view_opts *o,
		 line_fn emit, void *ctx);

/* Everything, as one JSON document. */
void view_json(struct json_writer *jw, const struct ipc_state *st,
	       const struct view_opts *o);

/* Segment indexes in display order; returns how many pass the filter. */
size_t view_seg_order(const struct ipc_state *st, const struct view_opts *o,
		      size_t *order);

#endif
