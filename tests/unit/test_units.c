// SPDX-License-Identifier: GPL-2.0
#include "unit.h"

#include "units.h"

static void units_bytes_exact(void **state)
{
	char b[UNITS_BUF];

	(void)state;
	assert_string_equal(fmt_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1024), "1 KiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 16 << 20), "16 MiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 96ULL << 30), "96 GiB");
}

static void units_bytes_fraction(void **state)
{
	char b[UNITS_BUF];

	(void)state;
	assert_string_equal(fmt_bytes(b, sizeof(b), 1536), "1.5 KiB");
	/* 3.2 GiB, the shmall example of the design */
	assert_string_equal(fmt_bytes(b, sizeof(b), 3435973837ULL), "3.2 GiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 5000), "4.9 KiB");
}

static void units_bytes_beyond_64_bits(void **state)
{
	/* shmall x page size at the default: (2^64 - 2^24 - 1) x 4096 */
	unsigned __int128 v = (unsigned __int128)(UINT64_MAX - (1ULL << 24)) *
			      4096;
	char b[UNITS_BUF];

	(void)state;
	assert_string_equal(fmt_bytes(b, sizeof(b), v), "64.0 ZiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), UINT64_MAX), "16.0 EiB");
}

static void units_u128_digits(void **state)
{
	char b[48];

	(void)state;
	assert_string_equal(fmt_u128(b, sizeof(b), 0), "0");
	assert_string_equal(fmt_u128(b, sizeof(b), UINT64_MAX),
			    "18446744073709551615");
	assert_string_equal(fmt_u128(b, sizeof(b),
				     (unsigned __int128)UINT64_MAX + 1),
			    "18446744073709551616");
}

static void units_parse_bytes_accepts(void **state)
{
	uint64_t v;

	(void)state;
	assert_true(parse_bytes("4096", &v));
	assert_int_equal(v, 4096);
	assert_true(parse_bytes("64K", &v));
	assert_int_equal(v, 65536);
	assert_true(parse_bytes("64MiB", &v));
	assert_int_equal(v, 64ULL << 20);
	assert_true(parse_bytes("1.5G", &v));
	assert_int_equal(v, 3ULL << 29);
	assert_true(parse_bytes("2TB", &v));
	assert_int_equal(v, 2ULL << 40);
	assert_true(parse_bytes("18446744073709551615", &v));
	assert_int_equal(v, UINT64_MAX);
	/* exact in integers (valgrind's long double is a double) */
	assert_true(parse_bytes("9223372036854775807", &v));
	assert_int_equal(v, INT64_MAX);
	assert_true(parse_bytes("0.5K", &v));
	assert_int_equal(v, 512);
	assert_true(parse_bytes("15.75E", &v));
	assert_int_equal(v, 63ULL << 58);
	assert_true(parse_bytes("1.50000000000000000000000K", &v));
	assert_int_equal(v, 1536);
}

static void units_parse_bytes_rejects(void **state)
{
	uint64_t v;

	(void)state;
	assert_false(parse_bytes("", &v));
	assert_false(parse_bytes("-1", &v));
	assert_false(parse_bytes("12x", &v));
	assert_false(parse_bytes("K", &v));
	assert_false(parse_bytes("1.1", &v));
	assert_false(parse_bytes("16E", &v));	/* 2^64: one too many */
	assert_false(parse_bytes("4 K", &v));
	assert_false(parse_bytes("4KiBs", &v));
	assert_false(parse_bytes("18446744073709551616", &v));
	assert_false(parse_bytes("16.0000000000000000001E", &v));
	assert_false(parse_bytes("1.0000000000000000000001K", &v));
	/* digits and a unit, not C's floating point syntax */
	assert_false(parse_bytes("1e3", &v));
	assert_false(parse_bytes("0x10", &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(units_bytes_exact),
		cmocka_unit_test(units_bytes_fraction),
		cmocka_unit_test(units_bytes_beyond_64_bits),
		cmocka_unit_test(units_u128_digits),
		cmocka_unit_test(units_parse_bytes_accepts),
		cmocka_unit_test(units_parse_bytes_rejects),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
