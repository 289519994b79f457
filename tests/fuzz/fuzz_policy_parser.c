// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the policy parser on any text, and its describer. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct policy p;
	char err[4096];
	FILE *f, *out;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	if (policy_load_file(f, "fuzz.ini", 64ULL << 30, &p, err,
			     sizeof(err)) == 0) {
		out = fopen("/dev/null", "w");
		if (out) {
			policy_describe(&p, out);
			fclose(out);
		}
	}
	fclose(f);
	return 0;
}
