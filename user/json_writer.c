// SPDX-License-Identifier: GPL-2.0
#include "json_writer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "printable.h"
#include "units.h"

#define JW_MAX_DEPTH 32

struct json_writer {
	FILE *out;
	int depth;
	/* per depth: nothing written yet, so no comma before the next */
	bool first[JW_MAX_DEPTH];
	bool after_name;
	bool batched;	/* the caller flushes; not one write per record */
};

struct json_writer *jw_new(FILE *out)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (jw) {
		jw->out = out;
		jw->first[0] = true;
	}
	return jw;
}

void jw_destroy(struct json_writer *jw)
{
	free(jw);
}

/*
 * A record (depth 0 to 0) is written under one flockfile(): stdio's
 * locked calls cost more than the bytes, tens of them per event.
 */
static void put_bytes(struct json_writer *jw, const void *p, size_t n)
{
	if (jw->depth)
		fwrite_unlocked(p, 1, n, jw->out);
	else
		fwrite(p, 1, n, jw->out);
}

static void put_char(struct json_writer *jw, char c)
{
	if (jw->depth)
		fputc_unlocked(c, jw->out);
	else
		fputc(c, jw->out);
}

static void put_str(struct json_writer *jw, const char *s)
{
	put_bytes(jw, s, strlen(s));
}

/* Comma handling before any value or name. */
static void separate(struct json_writer *jw)
{
	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	if (!jw->first[jw->depth])
		put_char(jw, ',');
	jw->first[jw->depth] = false;
}

static void open_scope(struct json_writer *jw, char c)
{
	separate(jw);
	if (!jw->depth)
		flockfile(jw->out);
	fputc_unlocked(c, jw->out);
	if (jw->depth < JW_MAX_DEPTH - 1)
		jw->depth++;
	jw->first[jw->depth] = true;
}

static void close_scope(struct json_writer *jw, char c)
{
	if (!jw->depth)		/* unbalanced: not ours to unlock */
		return;
	fputc_unlocked(c, jw->out);
	jw->depth--;
	if (jw->depth == 0) {
		fputc_unlocked('\n', jw->out);
		funlockfile(jw->out);
		if (!jw->batched)
			fflush(jw->out);
		jw->first[0] = true;
	}
}

void jw_set_batched(struct json_writer *jw, bool batched)
{
	jw->batched = batched;
}

void jw_start_object(struct json_writer *jw)
{
	open_scope(jw, '{');
}

void jw_end_object(struct json_writer *jw)
{
	close_scope(jw, '}');
}

void jw_start_array(struct json_writer *jw)
{
	open_scope(jw, '[');
}

void jw_end_array(struct json_writer *jw)
{
	close_scope(jw, ']');
}

/*
 * JSON text must be UTF-8: a byte that is not part of valid UTF-8 is
 * written as the four characters \xNN (there is no JSON escape for a
 * byte), every control character as \u00XX.
 */
static void write_string(struct json_writer *jw, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];

	put_char(jw, '"');
	while (*p) {
		const unsigned char *run = p;
		uint32_t cp = 0;
		size_t n;

		/* printable ASCII needs no escape: one write for the run
		 * (stdio takes its lock per call) */
		while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			put_bytes(jw, run, (size_t)(p - run));
		if (!*p)
			break;
		n = utf8_sequence(p, &cp);

		if (!n) {
			snprintf(esc, sizeof(esc), "\\\\x%02x", *p++);
			put_str(jw, esc);
			continue;
		}
		p += n;
		switch (cp) {
		case '"': put_str(jw, "\\\""); break;
		case '\\': put_str(jw, "\\\\"); break;
		case '\n': put_str(jw, "\\n"); break;
		case '\r': put_str(jw, "\\r"); break;
		case '\t': put_str(jw, "\\t"); break;
		default:
			if (is_control(cp)) {
				snprintf(esc, sizeof(esc), "\\u%04x",
					 (unsigned int)cp);
				put_str(jw, esc);
			} else {
				put_bytes(jw, p - n, n);
			}
		}
	}
	put_char(jw, '"');
}

void jw_name(struct json_writer *jw, const char *name)
{
	separate(jw);
	write_string(jw, name);
	put_char(jw, ':');
	jw->after_name = true;
}

void jw_string(struct json_writer *jw, const char *s)
{
	separate(jw);
	write_string(jw, s ? s : "");
}

/* A decimal, without printf's format parsing: events are mostly
 * numbers, and a flood is bound by writing them. */
static void write_decimal(struct json_writer *jw, uint64_t v, bool negative)
{
	char buf[24], *q = buf + sizeof(buf);

	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		*--q = '-';
	put_bytes(jw, q, (size_t)(buf + sizeof(buf) - q));
}

void jw_int(struct json_writer *jw, int64_t v)
{
	separate(jw);
	write_decimal(jw, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

void jw_uint(struct json_writer *jw, uint64_t v)
{
	separate(jw);
	write_decimal(jw, v, false);
}

void jw_u128(struct json_writer *jw, unsigned __int128 v)
{
	char buf[48];

	separate(jw);
	put_str(jw, fmt_u128(buf, sizeof(buf), v));
}

void jw_double(struct json_writer *jw, double v)
{
	char buf[32];

	separate(jw);
	/* JSON has no NaN or infinity */
	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.6g", v);
	else
		snprintf(buf, sizeof(buf), "null");
	put_str(jw, buf);
}

void jw_bool(struct json_writer *jw, bool v)
{
	separate(jw);
	put_str(jw, v ? "true" : "false");
}

void jw_null(struct json_writer *jw)
{
	separate(jw);
	put_str(jw, "null");
}

void jw_kv_string(struct json_writer *jw, const char *name, const char *s)
{
	jw_name(jw, name);
	jw_string(jw, s);
}

void jw_kv_int(struct json_writer *jw, const char *name, int64_t v)
{
	jw_name(jw, name);
	jw_int(jw, v);
}

void jw_kv_uint(struct json_writer *jw, const char *name, uint64_t v)
{
	jw_name(jw, name);
	jw_uint(jw, v);
}

void jw_kv_u128(struct json_writer *jw, const char *name,
		unsigned __int128 v)
{
	jw_name(jw, name);
	jw_u128(jw, v);
}

void jw_kv_double(struct json_writer *jw, const char *name, double v)
{
	jw_name(jw, name);
	jw_double(jw, v);
}

void jw_kv_bool(struct json_writer *jw, const char *name, bool v)
{
	jw_name(jw, name);
	jw_bool(jw, v);
}
