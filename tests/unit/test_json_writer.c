// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_writer.h"

static char *buf;
static size_t len;

static struct json_writer *open_writer(FILE **f)
{
	*f = open_memstream(&buf, &len);
	return jw_new(*f);
}

static void close_writer(struct json_writer *jw, FILE *f)
{
	jw_destroy(jw);
	fclose(f);
}

static void json_nested_document(void **state)
{
	FILE *f;
	struct json_writer *jw = open_writer(&f);

	(void)state;
	jw_start_object(jw);
	jw_kv_string(jw, "a", "x");
	jw_name(jw, "list");
	jw_start_array(jw);
	jw_int(jw, -1);
	jw_uint(jw, UINT64_MAX);
	jw_start_object(jw);
	jw_end_object(jw);
	jw_end_array(jw);
	jw_kv_bool(jw, "b", true);
	jw_name(jw, "n");
	jw_null(jw);
	jw_end_object(jw);
	close_writer(jw, f);
	assert_string_equal(buf, "{\"a\":\"x\",\"list\":[-1,"
				 "18446744073709551615,{}],\"b\":true,"
				 "\"n\":null}\n");
	free(buf);
}

static void json_escapes_strings(void **state)
{
	FILE *f;
	struct json_writer *jw = open_writer(&f);

	(void)state;
	jw_start_object(jw);
	jw_kv_string(jw, "s", "q\"b\\n\nt\t\x01");
	jw_end_object(jw);
	close_writer(jw, f);
	assert_string_equal(buf, "{\"s\":\"q\\\"b\\\\n\\nt\\t\\u0001\"}\n");
	free(buf);
}

/* a command name is any bytes: valid UTF-8 out, no terminal escapes */
static void json_escapes_bytes_and_controls(void **state)
{
	FILE *f;
	struct json_writer *jw = open_writer(&f);

	(void)state;
	jw_start_object(jw);
	/* ESC [ 2 J, DEL, C1 CSI (U+009B), a stray byte, an overlong '/' */
	jw_kv_string(jw, "comm", "a\x1b[2J\x7f\xc2\x9b\xff\xc0\xaf");
	/* valid UTF-8 stays as it is */
	jw_kv_string(jw, "u", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	/* cut short by the end of the string */
	jw_kv_string(jw, "cut", "x\xe2\x82");
	jw_end_object(jw);
	close_writer(jw, f);
	assert_string_equal(buf,
		"{\"comm\":\"a\\u001b[2J\\u007f\\u009b\\\\xff\\\\xc0\\\\xaf\","
		"\"u\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7\","
		"\"cut\":\"x\\\\xe2\\\\x82\"}\n");
	free(buf);
}

static void json_one_line_per_document(void **state)
{
	FILE *f;
	struct json_writer *jw = open_writer(&f);

	(void)state;
	jw_start_object(jw);
	jw_kv_u128(jw, "big", (unsigned __int128)UINT64_MAX * 4096);
	jw_end_object(jw);
	jw_start_object(jw);
	jw_kv_double(jw, "f", 0.25);
	jw_kv_double(jw, "nan", NAN);
	jw_end_object(jw);
	close_writer(jw, f);
	assert_string_equal(buf, "{\"big\":75557863725914323415040}\n"
				 "{\"f\":0.25,\"nan\":null}\n");
	free(buf);
}

/* Decimals written by hand, not printf: the ends of both ranges. */
static void json_integer_limits(void **state)
{
	FILE *f;
	struct json_writer *jw = open_writer(&f);

	(void)state;
	jw_start_array(jw);
	jw_int(jw, INT64_MIN);
	jw_int(jw, -1);
	jw_int(jw, 0);
	jw_int(jw, INT64_MAX);
	jw_uint(jw, 0);
	jw_uint(jw, UINT64_MAX);
	jw_end_array(jw);
	close_writer(jw, f);
	assert_string_equal(buf, "[-9223372036854775808,-1,0,"
				 "9223372036854775807,0,"
				 "18446744073709551615]\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_nested_document),
		cmocka_unit_test(json_escapes_strings),
		cmocka_unit_test(json_escapes_bytes_and_controls),
		cmocka_unit_test(json_one_line_per_document),
		cmocka_unit_test(json_integer_limits),
	};

	return cmocka_run_group_tests_name("json_writer", tests, NULL, NULL);
}
