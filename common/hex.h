/*
 * Bytes as lowercase hex, the one spelling of a SHA-256 (checksum files, the
 * ledger, the audit sid) in postern. It never reads past n bytes of in.
 */
#ifndef POSTERN_HEX_H
#define POSTERN_HEX_H

#include <stddef.h>

/* Write 2n lowercase hex digits and a NUL into out (2n + 1 bytes). */
void hex_lower(const unsigned char *in, size_t n, char *out);

#endif
