// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any ring buffer record through the decoder, then
 * every formatter that would print it (text and JSON).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "event.h"
#include "event_format.h"
#include "json_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct format_opts opts[] = {
		{ .page_size = 4096 },
		{ .page_size = 65536, .timestamps = true },
	};
	struct ipcw_event e;
	FILE *out;
	size_t i;

	if (event_decode(data, size, &e))
		return 0;
	out = fopen("/dev/null", "w");
	if (!out)
		return 0;
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		struct json_writer *jw = jw_new(out);

		event_print_text(out, &e, &opts[i]);
		if (jw) {
			event_print_json(jw, &e, &opts[i]);
			jw_destroy(jw);
		}
	}
	(void)event_failed(&e);
	fclose(out);
	return 0;
}
