# bash completion for pidvisorctl: verbs, options, and the names of the
# services of the running supervisor (from `pidvisorctl status`).

_pidvisorctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local verbs="logs poweroff reboot reload restart shutdown signal start
	    status stop version wait"
	local i verb= names sock=()

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-s)	sock=(-s "${COMP_WORDS[i + 1]}"); ((i++)) ;;
		-*)	;;
		*)	verb=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$verb" ]; then
		if [ "$prev" = -s ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		else
			COMPREPLY=($(compgen -W "-s $verbs" -- "$cur"))
		fi
		return
	fi

	local argn=$((COMP_CWORD - i)) opts=
	case $verb in
	status)			opts="--json" ;;
	start|stop|restart)	opts="--wait --timeout=" ;;
	wait)			opts="--timeout=" ;;
	logs)			opts="-n -f --json" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	[ "$prev" = -n ] && return
	case $verb in
	status|start|stop|restart|signal|wait|logs)
		if [ "$argn" = 1 ]; then
			names=$(pidvisorctl "${sock[@]}" status 2>/dev/null |
			    awk 'NR > 1 && !/^\(/ { print $1 }')
			COMPREPLY=($(compgen -W "$names" -- "$cur"))
			return
		fi
		;;
	esac
	case $verb:$argn in
	signal:2)
		COMPREPLY=($(compgen -W "ABRT CONT HUP INT KILL QUIT STOP TERM
		    USR1 USR2" -- "$cur"))
		;;
	wait:2)
		COMPREPLY=($(compgen -W "backoff failed ready starting stopped
		    stopping" -- "$cur"))
		;;
	esac
}
complete -F _pidvisorctl pidvisorctl
