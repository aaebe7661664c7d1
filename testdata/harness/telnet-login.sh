#!/bin/sh
# telnet-login.sh — the login program telnetd runs (telnetd -E) for fetch's
# integration tests, on the session's terminal. Asks "login: " and
# "Password: "; telnetuser/telnetpass gets "Welcome to fetch-test" and a "$ "
# prompt that echoes each command line back until "exit". Anything else gets
# "Login incorrect" and the connection ends. Before each exit it waits a
# second, as login(1) waits after a failure: telnetd closes the connection
# as soon as its child exits, and output still in the terminal then is lost.
printf 'login: '
IFS= read -r user || exit 1
stty -echo 2>/dev/null
printf 'Password: '
IFS= read -r pass || exit 1
stty echo 2>/dev/null
printf '\n'
if [ "$user" != telnetuser ] || [ "$pass" != telnetpass ]; then
	printf 'Login incorrect\n'
	sleep 1
	exit 1
fi
printf 'Welcome to fetch-test\n'
while printf '$ ' && IFS= read -r cmd; do
	case $cmd in
	exit)
		printf 'logout\n'
		sleep 1
		exit 0
		;;
	esac
	printf 'you said: %s\n' "$cmd"
done
