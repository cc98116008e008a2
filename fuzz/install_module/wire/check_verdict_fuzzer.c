/*
 * The daemon's parser of the checker's verdict, from any bytes: the input
 * is what a compromised checker could send. Whatever it accepts must
 * encode back to exactly the same bytes (nothing ignored, no padding
 * smuggled), carry a message that matches its outcome, and a NEWS excerpt
 * that cleaning leaves unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char again[CHECK_VERDICT_SIZE];
	static struct check_verdict v;
	char clean[RELEASE_NEWS_MAX + 1];
	struct pst_err e;

	e.msg[0] = '\0';
	if (check_verdict_parse(data, size, &v, &e) < 0) {
		if (e.msg[0] == '\0')
			abort();
		return 0;
	}
	if (size != CHECK_VERDICT_SIZE || !check_verdict_encode(&v, again) ||
	    memcmp(again, data, size) != 0)
		abort();
	if ((v.outcome == CHECK_PASS) != (v.message[0] == '\0'))
		abort();
	release_news_excerpt(v.news, strlen(v.news), clean);
	if (strcmp(clean, v.news) != 0 || (!v.has_news && v.news[0] != '\0'))
		abort();
	return 0;
}
