/*
 * gen.c - write pidvisorctl's completion for bash, zsh or fish from the
 * verb table (proto.c), so that a verb or option added there is
 * completed everywhere: gen bash|zsh|fish > FILE.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"

/* The options a verb takes, each after a blank. */
static void
opts(const struct ctl_verb *v, char *out, size_t n)
{
	out[0] = '\0';
	if (v->flags & VF_JSON)
		strncat(out, " --json", n - strlen(out) - 1);
	if (v->flags & VF_WAIT)
		strncat(out, " --wait", n - strlen(out) - 1);
	if (v->flags & VF_TIMEOUT)
		strncat(out, " --timeout=", n - strlen(out) - 1);
	if (v->flags & VF_LINES)
		strncat(out, " -n", n - strlen(out) - 1);
	if (v->flags & VF_FOLLOW)
		strncat(out, " -f", n - strlen(out) - 1);
	if (v->flags & VF_BINARY)
		strncat(out, " --binary", n - strlen(out) - 1);
	if (v->flags & VF_ALL)
		strncat(out, " --all", n - strlen(out) - 1);
	if (v->flags & VF_NOW)
		strncat(out, " --now", n - strlen(out) - 1);
}

/* Does its first argument name a service: 1; NAME..., every one: 2. */
static int
names(const struct ctl_verb *v)
{
	const char	*p = strchr(v->usage, ' ');

	if (p == NULL)
		return 0;
	p += 1 + (p[1] == '[');		/* status [NAME...] */
	if (strncmp(p, "NAME", 4) != 0)
		return 0;
	return strncmp(p, "NAME...", 7) == 0 ? 2 : 1;
}

/* Print s for inside single quotes: zsh closes and reopens, fish escapes. */
static void
quoted(const char *s, bool fish)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs(fish ? "\\'" : "'\"'\"'", stdout);
		else if (*s == ':' && !fish)
			fputs("\\:", stdout);
		else
			putchar(*s);
	}
}

static const char signals[] = "ABRT CONT HUP INT KILL QUIT STOP TERM USR1 "
    "USR2";
static const char states[] = "backoff done failed listening ready starting stopped "
    "stopping";

static void
bash(void)
{
	char	o[128];
	int	i;

	printf("# bash completion for pidvisorctl, made by completion/gen.c "
	    "from the verb\n# table: verbs, options, and the names of the "
	    "services of the running\n# supervisor.\n\n"
	    "_pidvisorctl()\n{\n"
	    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} "
	    "prev=${COMP_WORDS[COMP_CWORD-1]}\n\tlocal verbs=\"help");
	for (i = 0; i < VERB__COUNT; i++)
		printf(" %s", ctl_verbs[i].name);
	printf("\"\n\tlocal i verb= names sock=() argn=0\n\n"
	    "\tCOMPREPLY=()\n"
	    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	    "\t\tcase ${COMP_WORDS[i]} in\n"
	    "\t\t-s)\tsock=(-s \"${COMP_WORDS[i + 1]}\"); ((i++)) ;;\n"
	    "\t\t-n|--binary)\t((i++)) ;;\n"
	    "\t\t-*)\t;;\n"
	    "\t\t*)\tif [ -z \"$verb\" ]; then verb=${COMP_WORDS[i]}; "
	    "else ((argn++)); fi ;;\n"
	    "\t\tesac\n\tdone\n"
	    "\tif [ \"$prev\" = -s ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\t\treturn\n\tfi\n"
	    "\tif [ -z \"$verb\" ]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"-s --help --version $verbs\" -- "
	    "\"$cur\"))\n\t\treturn\n\tfi\n"
	    "\tlocal opts=\n\tcase $verb in\n");
	for (i = 0; i < VERB__COUNT; i++) {
		opts(&ctl_verbs[i], o, sizeof(o));
		if (o[0])
			printf("\t%s)\topts=\"%s\" ;;\n", ctl_verbs[i].name,
			    o + 1);
	}
	printf("\tesac\n"
	    "\tif [[ $cur == -* ]]; then\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	    "\t\treturn\n\tfi\n"
	    "\t[ \"$prev\" = -n ] && return\n"
	    "\tcase $verb:$argn in\n\thelp:0)\n"
	    "\t\tCOMPREPLY=($(compgen -W \"$verbs\" -- \"$cur\")) ;;\n");
	for (i = 0; i < VERB__COUNT; i++)
		if (names(&ctl_verbs[i]))
			printf("\t%s:%s)\n\t\tnames=$(pidvisorctl "
			    "\"${sock[@]}\" status 2>/dev/null |\n"
			    "\t\t    awk 'NR > 1 { print $1 }')\n"
			    "\t\tCOMPREPLY=($(compgen -W \"$names\" -- "
			    "\"$cur\")) ;;\n", ctl_verbs[i].name,
			    names(&ctl_verbs[i]) == 2 ? "*" : "0");
	printf("\tpressure:0)\n\t\tCOMPREPLY=($(compgen -W kill -- "
	    "\"$cur\")) ;;\n"
	    "\tsignal:1|kill:1)\n\t\tCOMPREPLY=($(compgen -W \"%s\" -- "
	    "\"$cur\")) ;;\n"
	    "\twait:1)\n\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) "
	    ";;\n\tesac\n}\ncomplete -F _pidvisorctl pidvisorctl\n",
	    signals, states);
}

static void
zsh(void)
{
	char	o[128], *t;
	int	i;

	printf("#compdef pidvisorctl\n# zsh completion for pidvisorctl, "
	    "made by completion/gen.c from the verb table.\n\n"
	    "_pidvisorctl_names() {\n\tlocal -a n\n"
	    "\tn=(${(f)\"$(pidvisorctl status 2>/dev/null | "
	    "awk 'NR > 1 { print $1 }')\"})\n"
	    "\t_describe service n\n}\n\n"
	    "_pidvisorctl() {\n\tlocal -a verbs\n\tverbs=(\n"
	    "\t\t'help:the usage, or a verb'\"'\"'s'\n");
	for (i = 0; i < VERB__COUNT; i++) {
		printf("\t\t'%s:", ctl_verbs[i].name);
		quoted(ctl_verbs[i].help, false);
		printf("'\n");
	}
	printf("\t)\n\tif (( CURRENT == 2 )); then\n"
	    "\t\t_describe verb verbs\n\t\treturn\n\tfi\n"
	    "\tcase $words[2] in\n");
	for (i = 0; i < VERB__COUNT; i++) {
		opts(&ctl_verbs[i], o, sizeof(o));
		printf("\t%s)\n\t\t_arguments", ctl_verbs[i].name);
		for (t = strtok(o, " "); t; t = strtok(NULL, " "))
			printf(" '%s%s'", t, t[strlen(t) - 1] == '=' ?
			    ":duration:" : "");
		if (names(&ctl_verbs[i]) == 2)
			printf(" '*:service:_pidvisorctl_names'");
		else if (names(&ctl_verbs[i]))
			printf(" '1:service:_pidvisorctl_names'");
		if (i == VERB_SIGNAL || i == VERB_KILL)
			printf(" '2:signal:(%s)'", signals);
		if (i == VERB_WAIT)
			printf(" '2:state:(%s)'", states);
		printf(" ;;\n");
	}
	printf("\thelp)\n\t\t_describe verb verbs ;;\n\tesac\n}\n\n"
	    "_pidvisorctl \"$@\"\n");
}

static void
fish(void)
{
	char	o[128], *t;
	int	i;

	printf("# fish completion for pidvisorctl, made by completion/gen.c "
	    "from the verb table.\n\n"
	    "function __pidvisorctl_names\n"
	    "\tpidvisorctl status 2>/dev/null | awk 'NR > 1 { print $1 }'\n"
	    "end\n\n"
	    "complete -c pidvisorctl -f\n"
	    "complete -c pidvisorctl -s s -l socket -r -d 'control socket'\n"
	    "complete -c pidvisorctl -s h -l help -d 'usage'\n"
	    "complete -c pidvisorctl -l version -d 'version'\n"
	    "complete -c pidvisorctl -n __fish_use_subcommand -a help "
	    "-d 'usage of a verb'\n");
	for (i = 0; i < VERB__COUNT; i++) {
		const struct ctl_verb	*v = &ctl_verbs[i];

		printf("complete -c pidvisorctl -n __fish_use_subcommand "
		    "-a %s -d '", v->name);
		quoted(v->help, true);
		printf("'\n");
		if (names(v))
			printf("complete -c pidvisorctl -n '__fish_seen_"
			    "subcommand_from %s' -a '(__pidvisorctl_names)'\n",
			    v->name);
		opts(v, o, sizeof(o));
		for (t = strtok(o, " "); t; t = strtok(NULL, " ")) {
			if (t[1] == '-')
				printf("complete -c pidvisorctl -n '__fish_"
				    "seen_subcommand_from %s' -l %.*s%s\n",
				    v->name, (int)strcspn(t + 2, "="), t + 2,
				    strchr(t, '=') ? " -r" : "");
			else
				printf("complete -c pidvisorctl -n '__fish_"
				    "seen_subcommand_from %s' -s %s\n",
				    v->name, t + 1);
		}
	}
	printf("complete -c pidvisorctl -n '__fish_seen_subcommand_from "
	    "signal kill' -a '%s'\n", signals);
	printf("complete -c pidvisorctl -n '__fish_seen_subcommand_from "
	    "wait' -a '%s'\n", states);
	printf("complete -c pidvisorctl -n '__fish_seen_subcommand_from "
	    "help' -a '");
	for (i = 0; i < VERB__COUNT; i++)
		printf("%s%s", i ? " " : "", ctl_verbs[i].name);
	printf("'\n");
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "bash") == 0)
		bash();
	else if (argc == 2 && strcmp(argv[1], "zsh") == 0)
		zsh();
	else if (argc == 2 && strcmp(argv[1], "fish") == 0)
		fish();
	else {
		fprintf(stderr, "usage: gen bash|zsh|fish\n");
		return 2;
	}
	return 0;
}
