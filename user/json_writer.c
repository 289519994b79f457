// SPDX-License-Identifier: GPL-2.0
#include "json_writer.h"

#include <math.h>
#include <stdlib.h>

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

/* Comma handling before any value or name. */
static void separate(struct json_writer *jw)
{
	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	if (!jw->first[jw->depth])
		fputc(',', jw->out);
	jw->first[jw->depth] = false;
}

static void open_scope(struct json_writer *jw, char c)
{
	separate(jw);
	fputc(c, jw->out);
	if (jw->depth < JW_MAX_DEPTH - 1)
		jw->depth++;
	jw->first[jw->depth] = true;
}

static void close_scope(struct json_writer *jw, char c)
{
	fputc(c, jw->out);
	if (jw->depth > 0)
		jw->depth--;
	if (jw->depth == 0) {
		fputc('\n', jw->out);
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
static void write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_sequence(p, &cp);

		if (!n) {
			fprintf(out, "\\\\x%02x", *p++);
			continue;
		}
		p += n;
		switch (cp) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (is_control(cp))
				fprintf(out, "\\u%04x", (unsigned int)cp);
			else
				fwrite(p - n, 1, n, out);
		}
	}
	fputc('"', out);
}

void jw_name(struct json_writer *jw, const char *name)
{
	separate(jw);
	write_string(jw->out, name);
	fputc(':', jw->out);
	jw->after_name = true;
}

void jw_string(struct json_writer *jw, const char *s)
{
	separate(jw);
	write_string(jw->out, s ? s : "");
}

void jw_int(struct json_writer *jw, int64_t v)
{
	separate(jw);
	fprintf(jw->out, "%lld", (long long)v);
}

void jw_uint(struct json_writer *jw, uint64_t v)
{
	separate(jw);
	fprintf(jw->out, "%llu", (unsigned long long)v);
}

void jw_u128(struct json_writer *jw, unsigned __int128 v)
{
	char buf[48];

	separate(jw);
	fputs(fmt_u128(buf, sizeof(buf), v), jw->out);
}

void jw_double(struct json_writer *jw, double v)
{
	separate(jw);
	/* JSON has no NaN or infinity */
	if (isfinite(v))
		fprintf(jw->out, "%.6g", v);
	else
		fputs("null", jw->out);
}

void jw_bool(struct json_writer *jw, bool v)
{
	separate(jw);
	fputs(v ? "true" : "false", jw->out);
}

void jw_null(struct json_writer *jw)
{
	separate(jw);
	fputs("null", jw->out);
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
