/* SPDX-License-Identifier: GPL-2.0 */
/* Human units for byte counts, and their parsing. */
#ifndef IPCWATCH_UNITS_H
#define IPCWATCH_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Room for any formatted size, 128-bit ones included. */
#define UNITS_BUF 48

/*
 * "512 B", "16 MiB", "3.2 GiB": binary units, an integer when exact,
 * else one decimal. Takes 128 bits: shmall x page size overflows 64.
 */
const char *fmt_bytes(char *buf, size_t len, unsigned __int128 bytes);

/* Decimal digits of a 128-bit value. */
const char *fmt_u128(char *buf, size_t len, unsigned __int128 v);

/*
 * Parse "4096", "64M", "64MiB", "1.5G", "2T" (binary units; K, M, G, T,
 * P, E with an optional "iB" or "B"). False on junk or overflow.
 */
bool parse_bytes(const char *s, uint64_t *out);

#endif
