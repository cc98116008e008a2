/*
 * A stand-in for sqv or gpgv that behaves as a compromised one would: it
 * reads the name of one forbidden call from the "signature" (fd 3, the
 * only input a signature's author controls) and makes it: either the whole
 * file is the name, or a real signature carries it in a notation
 * call@postern.test (so that the real sqv passes it, and the stand-in is
 * gpgv). Confined as sig_verifier.c
 * confines sqv, it must be killed (SIGSYS) before the call returns; if the
 * call returns it says so and exits 42. "nothing" makes no call: the
 * stand-in is then refused as any failed verification.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static long attempt(const char *call)
{
	if (strcmp(call, "socket") == 0)
		return syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	if (strcmp(call, "connect") == 0)
		return syscall(SYS_connect, -1, NULL, 0);
	if (strcmp(call, "sendto") == 0)
		return syscall(SYS_sendto, -1, "", 0, 0, NULL, 0);
	if (strcmp(call, "kill") == 0)
		return syscall(SYS_kill, 1, 0);
	if (strcmp(call, "tgkill") == 0)
		return syscall(SYS_tgkill, 1, 1, 0);
	if (strcmp(call, "pidfd_open") == 0)
		return syscall(SYS_pidfd_open, 1, 0);
	if (strcmp(call, "ptrace") == 0)
		return syscall(SYS_ptrace, PTRACE_ATTACH, 1, NULL, NULL);
	if (strcmp(call, "process_vm_readv") == 0)
		return syscall(SYS_process_vm_readv, 1, NULL, 0, NULL, 0, 0);
	if (strcmp(call, "io_uring_setup") == 0)
		return syscall(SYS_io_uring_setup, 1, NULL);
	return 0;
}

#define NOTATION "call@postern.test"

/* The notation's value: the lower-case letters, digits and '_' after its name. */
static void call_from_notation(const char *sig, size_t len, char *call, size_t size)
{
	const char *p = memmem(sig, len, NOTATION, strlen(NOTATION));
	size_t n = 0;

	if (p == NULL)
		return;
	p += strlen(NOTATION);
	while (n + 1 < size && p + n < sig + len &&
	       ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_'))
		n++;
	memcpy(call, p, n);
	call[n] = '\0';
}

int main(void)
{
	static char sig[65536];
	char call[64] = "";
	ssize_t n = pread(3, sig, sizeof(sig) - 1, 0);  /* a sealed memfd, written before */

	if (n > 0) {
		sig[n] = '\0';
		if (memmem(sig, (size_t)n, NOTATION, strlen(NOTATION)) != NULL) {
			call_from_notation(sig, (size_t)n, call, sizeof(call));
		} else {
			sig[strcspn(sig, "\n")] = '\0';
			if (strlen(sig) < sizeof(call))
				memcpy(call, sig, strlen(sig) + 1);
		}
	}
	fprintf(stderr, "escaped: %s returned %ld\n", call, attempt(call));
	return 42;
}
