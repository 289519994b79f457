// SPDX-License-Identifier: GPL-2.0
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const unit_names[] = {
	"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB",
};

const char *fmt_u128(char *buf, size_t len, unsigned __int128 v)
{
	char digits[40];
	int n = 0;

	do {
		digits[n++] = '0' + (int)(v % 10);
		v /= 10;
	} while (v);
	if (len == 0)
		return buf;
	if ((size_t)n >= len)
		n = (int)len - 1;
	for (int i = 0; i < n; i++)
		buf[i] = digits[n - 1 - i];
	buf[n] = '\0';
	return buf;
}

const char *fmt_bytes(char *buf, size_t len, unsigned __int128 bytes)
{
	unsigned __int128 scale = 1;
	size_t unit = 0;
	char num[40];

	while (unit + 1 < sizeof(unit_names) / sizeof(unit_names[0]) &&
	       bytes >= scale * 1024) {
		scale *= 1024;
		unit++;
	}
	if (bytes % scale == 0) {
		snprintf(buf, len, "%s %s", fmt_u128(num, sizeof(num),
						     bytes / scale),
			 unit_names[unit]);
	} else {
		/* one decimal, rounded; 1023.96 KiB shows as 1024.0 KiB */
		unsigned __int128 tenths = (bytes * 10 + scale / 2) / scale;

		snprintf(buf, len, "%s.%d %s",
			 fmt_u128(num, sizeof(num), tenths / 10),
			 (int)(tenths % 10), unit_names[unit]);
	}
	return buf;
}

/*
 * In integers, not long double: exact wherever it runs (valgrind, and
 * targets whose long double is a double, round 2^64 - 1).
 */
bool parse_bytes(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTPE";
	unsigned __int128 value, frac = 0, ten = 1;
	unsigned long long whole;
	unsigned int shift = 0;
	const char *p;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	whole = strtoull(s, &end, 10);
	if (errno)
		return false;
	p = end;
	if (*p == '.') {
		/* 19 digits fit in 64 bits; zeros after them change nothing */
		for (p++; isdigit((unsigned char)*p); p++) {
			if (ten < 10000000000000000000ULL) {
				frac = frac * 10 + (unsigned int)(*p - '0');
				ten *= 10;
			} else if (*p != '0') {
				return false;
			}
		}
	}
	if (*p) {
		const char *u = strchr(units, toupper((unsigned char)*p));

		if (!u)
			return false;
		shift = 10 * (unsigned int)(u - units + 1);
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B"))
			p += strlen(p);
		if (*p)
			return false;
	}
	/* integers only: "1.5K" is 1536, "1.1B" is not a byte count */
	if ((frac << shift) % ten)
		return false;
	value = ((unsigned __int128)whole << shift) + (frac << shift) / ten;
	if (value > UINT64_MAX)
		return false;
	*out = (uint64_t)value;
	return true;
}
