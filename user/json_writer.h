/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer of ipcwatch: compact, one document per line
 * (NDJSON), numbers as JSON numbers. A writer needs no parser library;
 * bpftool keeps its own for the same reason.
 */
#ifndef IPCWATCH_JSON_WRITER_H
#define IPCWATCH_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer;

struct json_writer *jw_new(FILE *out);
void jw_destroy(struct json_writer *jw);
/* Records are flushed by the caller (after each batch), not each one. */
void jw_set_batched(struct json_writer *jw, bool batched);

void jw_start_object(struct json_writer *jw);
void jw_end_object(struct json_writer *jw);	/* ends the line at depth 0 */
void jw_start_array(struct json_writer *jw);
void jw_end_array(struct json_writer *jw);
void jw_name(struct json_writer *jw, const char *name);

void jw_string(struct json_writer *jw, const char *s);
void jw_int(struct json_writer *jw, int64_t v);
void jw_uint(struct json_writer *jw, uint64_t v);
void jw_u128(struct json_writer *jw, unsigned __int128 v);
void jw_double(struct json_writer *jw, double v);
void jw_bool(struct json_writer *jw, bool v);
void jw_null(struct json_writer *jw);

/* name + value in one call */
void jw_kv_string(struct json_writer *jw, const char *name, const char *s);
void jw_kv_int(struct json_writer *jw, const char *name, int64_t v);
void jw_kv_uint(struct json_writer *jw, const char *name, uint64_t v);
void jw_kv_u128(struct json_writer *jw, const char *name,
		unsigned __int128 v);
void jw_kv_double(struct json_writer *jw, const char *name, double v);
void jw_kv_bool(struct json_writer *jw, const char *name, bool v);

#endif
