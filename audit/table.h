/* An aligned text table: columns as wide as their widest cell. */
#ifndef POSTERN_AUDIT_TABLE_H
#define POSTERN_AUDIT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#define TABLE_COLS_MAX 12

struct table {
	size_t cols;
	size_t rows, cap;
	char **cell;                    /* rows * cols, owned */
	size_t width[TABLE_COLS_MAX];
};

void table_init(struct table *t, size_t cols);

/* Copies cols cells (NULL is shown as "-"). Returns 0 or -ENOMEM. */
int table_add(struct table *t, const char *const cells[]);

/* A row that is printed as is, across all columns (a separator line). */
int table_add_line(struct table *t, const char *text);

/* Prints and frees the table. */
void table_flush(struct table *t, FILE *out);

size_t text_width(const char *s);

#endif
