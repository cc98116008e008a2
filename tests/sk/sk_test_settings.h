/*
 * The software key's settings from the environment (sk_test_settings.c).
 * Each returns 0, or -1 when its variable is malformed or its file
 * unusable (why goes to stderr with POSTERN_SK_TEST_DEBUG).
 */
#ifndef POSTERN_SK_TEST_SETTINGS_H
#define POSTERN_SK_TEST_SETTINGS_H

#include <stdint.h>

/* Why a call failed, on stderr, when POSTERN_SK_TEST_DEBUG is set; never stdout. */
void sk_debug_at(const char *func, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define SK_DEBUG(...) sk_debug_at(__func__, __VA_ARGS__)

/* The flags byte of the next signature: POSTERN_SK_TEST_FLAGS, or 0x05. */
int sk_settings_flags(uint8_t *flags);

/* The counter of the next signature: POSTERN_SK_TEST_COUNTER, else the next
 * value of POSTERN_SK_TEST_COUNTER_FILE (written back), else 1. */
int sk_settings_counter(uint32_t *counter);

#endif
