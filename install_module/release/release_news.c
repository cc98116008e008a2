/* The NEWS excerpt of the release mail (see release_news.h). Must stay a pure function. */
#include "release_news.h"

#include <string.h>

#include "text.h"

void release_news_excerpt(const char *buf, size_t len, char *out)
{
	size_t i = 0, o = 0, seq, lines = 0;

	if (len > RELEASE_NEWS_MAX)
		len = RELEASE_NEWS_MAX;
	while (i < len && lines < RELEASE_NEWS_LINES) {
		seq = utf8_seq_len((const unsigned char *)buf + i, len - i);
		if (seq == 0 || buf[i] == '\0')
			break;
		if (utf8_seq_is_control((const unsigned char *)buf + i, seq) &&
		    buf[i] != '\n' && buf[i] != '\t') {
			out[o++] = '?';
		} else {
			memcpy(out + o, buf + i, seq);
			o += seq;
		}
		lines += buf[i] == '\n';
		i += seq;
	}
	out[o] = '\0';
}
