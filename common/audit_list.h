/*
 * A list of names in one audit value (upload_done's files=), encoded so
 * that it reads back exactly: items joined by ',', and inside an item '%'
 * written "%25" and ',' written "%2c"; an item that is exactly "-" is
 * written "%2d", as a lone "-" means a missing value. So "a,b" (one file)
 * is "a%2cb" and never the same as "a,b" (two files). The value is then
 * escaped like any other (audit.h); the reader splits its display form.
 */
#ifndef POSTERN_AUDIT_LIST_H
#define POSTERN_AUDIT_LIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Append item (non-empty) to the NUL-terminated list in buf (size bytes,
 * "" for an empty list). False, with buf unchanged, when the encoded list
 * would not fit in buf or its escaped form in one audit value
 * (AUDIT_VALUE_MAX): the caller counts what it left out.
 */
bool audit_list_add(char *buf, size_t size, const char *item);

/*
 * The next item of an encoded list, decoded into item (size bytes);
 * *cursor starts at the value and moves past the item. Returns 1 for an
 * item, 0 at the end ("-" is the empty list), -1 when the list is not one
 * audit_list_add() writes (an empty item, an unknown or uppercase %
 * escape, an item too long for item).
 */
int audit_list_next(const char **cursor, char *item, size_t size);

#endif
