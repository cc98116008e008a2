/*
 * Draws an otpauth URI as a QR code on the terminal (totp_qr.h). It only prints
 * what it is given; it must never keep or log it.
 */
#include "totp_qr.h"

#include <errno.h>
#include <qrencode.h>
#include <stdbool.h>

#define QUIET_ZONE 2

static bool dark(const QRcode *q, int x, int y)
{
	if (x < 0 || y < 0 || x >= q->width || y >= q->width)
		return false;
	return (q->data[y * q->width + x] & 1) != 0;
}

/*
 * One character cell holds two module rows. Light modules are drawn as
 * blocks, as `qrencode -t UTF8` does, so the code reads on the usual dark
 * terminal background; the quiet zone is drawn light too.
 */
int qr_print(FILE *f, const char *text)
{
	static const char *const cell[4] = { "\xe2\x96\x88", "\xe2\x96\x80", "\xe2\x96\x84", " " };
	QRcode *q = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1);
	int x;
	int y;

	if (q == NULL)
		return -errno;
	for (y = -QUIET_ZONE; y < q->width + QUIET_ZONE; y += 2) {
		for (x = -QUIET_ZONE; x < q->width + QUIET_ZONE; x++)
			fputs(cell[(dark(q, x, y) ? 2 : 0) | (dark(q, x, y + 1) ? 1 : 0)], f);
		fputc('\n', f);
	}
	QRcode_free(q);
	return 0;
}

int qr_show(FILE *f, const char *uri)
{
	int rc = qr_print(f, uri);

	fprintf(f, "or enter this URI:\n%s\n", uri);
	return rc;
}
