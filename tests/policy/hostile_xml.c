/*
 * A stand-in for a libxml2 that a DOAP file has taken over: preloaded into
 * postern-policy, its xmlParseDocument does what PTDOAP_TRY names instead
 * of parsing. Each attempt must end the confined parser (SIGSYS, SIGXCPU)
 * or be refused as a malformed answer; when one succeeds it leaves
 * PTDOAP_MARK behind, which the test looks for. Unset: the real parser.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int xmlParseDocument(void *ctxt);

static void escaped(void)
{
	const char *mark = getenv("PTDOAP_MARK");
	int fd = mark ? open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;

	if (fd >= 0)
		close(fd);
}

static void lie(const char *answer, size_t len)
{
	if (write(0, answer, len) == (ssize_t)len)
		_exit(0);
	_exit(1);
}

/* Endless well-formed fields: the parent must stop reading at its cap. */
static void flood(void)
{
	static char fields[65536];

	memset(fields, '-', sizeof(fields));
	fields[0] = 'M';
	for (;;) {
		if (write(0, fields, sizeof(fields)) <= 0)
			_exit(1);
		fields[0] = '-';
	}
}

int xmlParseDocument(void *ctxt)
{
	const char *try = getenv("PTDOAP_TRY");
	int (*real)(void *) = (int (*)(void *))dlsym(RTLD_NEXT, "xmlParseDocument");
	static const char forged[] = "M-=\033]0;owned\007Eve\0";

	if (try == NULL || real == NULL)
		return real ? real(ctxt) : -1;
	if (strcmp(try, "socket") == 0 && socket(AF_INET, SOCK_STREAM, 0) >= 0)
		escaped();
	if (strcmp(try, "open") == 0 && open("/etc/shadow", O_RDONLY) >= 0)
		escaped();
	if (strcmp(try, "kill") == 0 && kill(1, 0) == 0)
		escaped();
	if (strcmp(try, "exec") == 0)
		execl("/bin/true", "true", (char *)NULL);
	if (strcmp(try, "spin") == 0)
		for (;;)
			__asm__ volatile("" ::: "memory");
	if (strcmp(try, "forge") == 0)
		lie(forged, sizeof(forged) - 1);
	if (strcmp(try, "garble") == 0)
		lie("M=ptdoap-forged", 15);
	if (strcmp(try, "flood") == 0)
		flood();
	escaped();
	return real(ctxt);
}
