/*
 * The NEWS excerpt quoted in the release mail. Pure text handling, no
 * archive code: the checker makes the excerpt, and the daemon cleans the
 * checker's copy again before it reaches a mail (it never trusts it).
 */
#ifndef POSTERN_RELEASE_NEWS_H
#define POSTERN_RELEASE_NEWS_H

#include <stddef.h>

/* The release mail quotes at most this much of the top-level NEWS. */
#define RELEASE_NEWS_LINES 40
#define RELEASE_NEWS_MAX 4096

/*
 * Whole lines of buf, at most RELEASE_NEWS_LINES of them and at most
 * RELEASE_NEWS_MAX bytes (len beyond that is ignored), into out (room for
 * RELEASE_NEWS_MAX + 1 bytes, NUL-terminated). It ends at a NUL or invalid
 * UTF-8, and control characters (str_has_control's rule: C0, DEL, C1) other
 * than newline and tab become one '?' each, so the mail body cannot carry
 * terminal escapes. Cleaning a clean excerpt again changes nothing.
 */
void release_news_excerpt(const char *buf, size_t len, char *out);

#endif
