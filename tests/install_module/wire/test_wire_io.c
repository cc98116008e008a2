/*
 * wire_recv_msg: what the daemon sends is shown to a maintainer's terminal,
 * so every character text_show.h does not call printable arrives as '?':
 * ESC and C0, C1 raw and as UTF-8 (U+009B is CSI), bidi overrides and
 * invisible ones; plain text and other scripts pass unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire_io.h"

static void round_trip(const char *sent, const char *want)
{
	struct pst_err e = { "" };
	char got[WIRE_TEXT_MAX + 1];
	int sv[2], type;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(wire_send_msg(sv[0], WIRE_MSG_REFUSED, "%s", sent), 0);
	assert_int_equal(wire_recv_msg(sv[1], &type, got, sizeof(got), &e), 0);
	assert_int_equal(type, WIRE_MSG_REFUSED);
	assert_string_equal(got, want);
	close(sv[0]);
	close(sv[1]);
}

static void test_printable_passes(void **state)
{
	(void)state;
	round_trip("gtk-4.14.0.tar.xz: refused: a member is named 'é/日本'", "gtk-4.14.0.tar.xz: refused: a member is named 'é/日本'");
}

static void test_controls_replaced(void **state)
{
	(void)state;
	round_trip("a\x1b[2Jb", "a?[2Jb");
	round_trip("member 'x\xc2\x9b" "31mred'", "member 'x??31mred'");
	round_trip("raw \x9b" "31m", "raw ?31m");
	round_trip("bidi \xe2\x80\xae" "gpj.exe", "bidi ???gpj.exe");
	round_trip("zero\xe2\x80\x8bwidth", "zero???width");
	round_trip("tab\there", "tab?here");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printable_passes),
		cmocka_unit_test(test_controls_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
