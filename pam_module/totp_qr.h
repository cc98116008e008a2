/* Terminal rendering of an otpauth URI as a QR code (libqrencode). */
#ifndef POSTERN_TOTP_QR_H
#define POSTERN_TOTP_QR_H

#include <stdio.h>

/* Print text as a QR code in UTF-8 half blocks; -errno when it cannot. */
int qr_print(FILE *f, const char *text);

/* The QR code of an otpauth URI, then the URI itself for typing in. */
int qr_show(FILE *f, const char *uri);

#endif
