/* SPDX-License-Identifier: GPL-2.0 */
/* What every cmocka test file includes, in the order cmocka needs. */
#ifndef IPCWATCH_UNIT_H
#define IPCWATCH_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#endif
