/* Aligned text tables for postern-audit's output; cells come in display form
 * and it only pads them, never changes a byte of one. */
#include "table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++) {
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	}
	return w;
}

void table_init(struct table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols < TABLE_COLS_MAX ? cols : TABLE_COLS_MAX;
}

static int table_grow(struct table *t)
{
	char **grown;
	size_t cap;

	if (t->rows < t->cap)
		return 0;
	cap = t->cap == 0 ? 64 : t->cap * 2;
	grown = realloc(t->cell, cap * t->cols * sizeof(*grown));
	if (grown == NULL)
		return -ENOMEM;
	t->cell = grown;
	t->cap = cap;
	return 0;
}

int table_add(struct table *t, const char *const cells[])
{
	char **row;
	size_t i, w;

	if (table_grow(t) != 0)
		return -ENOMEM;
	row = t->cell + t->rows * t->cols;
	for (i = 0; i < t->cols; i++) {
		row[i] = strdup(cells[i] != NULL ? cells[i] : "-");
		if (row[i] == NULL) {
			while (i-- > 0)
				free(row[i]);
			return -ENOMEM;
		}
		w = text_width(row[i]);
		if (w > t->width[i])
			t->width[i] = w;
	}
	t->rows++;
	return 0;
}

int table_add_line(struct table *t, const char *text)
{
	char **row;
	size_t i;

	if (table_grow(t) != 0)
		return -ENOMEM;
	row = t->cell + t->rows * t->cols;
	row[0] = strdup(text);
	if (row[0] == NULL)
		return -ENOMEM;
	for (i = 1; i < t->cols; i++)
		row[i] = NULL;
	t->rows++;
	return 0;
}

void table_flush(struct table *t, FILE *out)
{
	size_t r, c, pad;
	char **row;

	for (r = 0; r < t->rows; r++) {
		row = t->cell + r * t->cols;
		for (c = 0; c < t->cols && row[c] != NULL; c++) {
			fputs(row[c], out);
			if (c + 1 < t->cols && row[c + 1] != NULL) {
				for (pad = text_width(row[c]); pad < t->width[c] + 2; pad++)
					fputc(' ', out);
			}
		}
		fputc('\n', out);
		for (c = 0; c < t->cols; c++)
			free(row[c]);
	}
	free(t->cell);
	memset(t, 0, sizeof(*t));
}
