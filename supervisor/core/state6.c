/*
 * state6.c - what the state of version 6 (pidvisor up to ba4044a: one
 * release back) needs that today's records do not say: which keys a file
 * gave, as bits numbered by that release's key table.  Read for one
 * release, then gone with st.h's positional reading.
 */
#include <string.h>

#include "conf.h"
#include "st.h"

/* That release's keys, in its order (its K_ ids). */
static const struct {
	uint8_t		 section;
	const char	*name;
} keys6[] = {
	{ SEC_SERVICE, "exec" },
	{ SEC_SERVICE, "restart" },
	{ SEC_SERVICE, "restart_delay" },
	{ SEC_SERVICE, "restart_delay_max" },
	{ SEC_SERVICE, "start_limit_burst" },
	{ SEC_SERVICE, "start_limit_interval" },
	{ SEC_SERVICE, "ready" },
	{ SEC_SERVICE, "ready_timeout" },
	{ SEC_SERVICE, "watchdog" },
	{ SEC_SERVICE, "requires" },
	{ SEC_SERVICE, "after" },
	{ SEC_SERVICE, "stop_signal" },
	{ SEC_SERVICE, "stop_timeout" },
	{ SEC_SERVICE, "user" },
	{ SEC_SERVICE, "group" },
	{ SEC_SERVICE, "workdir" },
	{ SEC_SERVICE, "env" },
	{ SEC_SERVICE, "umask" },
	{ SEC_SERVICE, "limit_nofile" },
	{ SEC_SERVICE, "enabled" },
	{ SEC_SERVICE, "log" },
	{ SEC_SERVICE, "log_buffer" },
	{ SEC_SERVICE, "log_file_max" },
	{ SEC_SERVICE, "log_file_keep" },
	{ SEC_SERVICE, "console" },
	{ SEC_SERVICE, "memory_max" },
	{ SEC_SERVICE, "memory_high" },
	{ SEC_SERVICE, "pids_max" },
	{ SEC_SERVICE, "kill_mode" },
	{ SEC_SERVICE, "kill_priority" },
	{ SEC_SERVICE, "oom_score_adj" },
	{ SEC_SUPERVISOR, "control_socket" },
	{ SEC_SUPERVISOR, "notify_dir" },
	{ SEC_SUPERVISOR, "control_mode" },
	{ SEC_SUPERVISOR, "max_clients" },
	{ SEC_SUPERVISOR, "client_timeout" },
	{ SEC_SUPERVISOR, "log" },
	{ SEC_SUPERVISOR, "log_buffer" },
	{ SEC_SUPERVISOR, "log_file_max" },
	{ SEC_SUPERVISOR, "log_file_keep" },
	{ SEC_SUPERVISOR, "log_dir" },
	{ SEC_SUPERVISOR, "log_level" },
	{ SEC_SUPERVISOR, "cgroup_root" },
	{ SEC_SUPERVISOR, "cgroup_memory_high" },
	{ SEC_SUPERVISOR, "pressure" },
	{ SEC_SUPERVISOR, "pressure_file" },
	{ SEC_SUPERVISOR, "pressure_reclaim" },
	{ SEC_SUPERVISOR, "pressure_kill_timeout" },
	{ SEC_SUPERVISOR, "pressure_calm" },
	{ SEC_SUPERVISOR, "pressure_calm_max" },
	{ SEC_SUPERVISOR, "crash_action" },
	{ SEC_SERVICE, "essential" },
	{ SEC_SUPERVISOR, "mode" },
	{ SEC_SUPERVISOR, "control_group" },
	{ SEC_SUPERVISOR, "log_format" },
	{ SEC_SERVICE, "settle" },
	{ SEC_SERVICE, "instances" },
	{ SEC_SERVICE, "env_file" },
	{ SEC_SERVICE, "reload_signal" },
	{ SEC_SERVICE, "reload_exec" },
	{ SEC_SUPERVISOR, "shutdown_timeout" },
	{ SEC_SERVICE, "start_pre_exec" },
	{ SEC_SERVICE, "start_post_exec" },
	{ SEC_SERVICE, "stop_exec" },
	{ SEC_SERVICE, "stop_post_exec" },
	{ SEC_SERVICE, "on_failure_exec" },
	{ SEC_SERVICE, "health_exec" },
	{ SEC_SERVICE, "health_interval" },
	{ SEC_SERVICE, "health_timeout" },
	{ SEC_SERVICE, "health_retries" },
	{ SEC_SERVICE, "health_start_period" },
	{ SEC_SUPERVISOR, "metrics_listen" },
	{ SEC_SUPERVISOR, "syslog_socket" },
	{ SEC_SERVICE, "syslog_facility" },
	{ SEC_SERVICE, "syslog_level" },
	{ SEC_SERVICE, "syslog_error_level" },
	{ SEC_SERVICE, "no_new_privs" },
	{ SEC_SERVICE, "capabilities" },
	{ SEC_SERVICE, "private_tmp" },
	{ SEC_SERVICE, "private_network" },
	{ SEC_SERVICE, "private_devices" },
	{ SEC_SERVICE, "protect_system" },
	{ SEC_SERVICE, "protect_home" },
	{ SEC_SERVICE, "read_only_paths" },
	{ SEC_SERVICE, "read_write_paths" },
	{ SEC_SERVICE, "inaccessible_paths" },
	{ SEC_SERVICE, "root_directory" },
	{ SEC_SERVICE, "syscall_filter" },
	{ SEC_SERVICE, "syscall_errno" },
	{ SEC_SERVICE, "nice" },
	{ SEC_SERVICE, "cpu_affinity" },
	{ SEC_SERVICE, "io_class" },
	{ SEC_SERVICE, "io_priority" },
	{ SEC_SERVICE, "cpu_weight" },
	{ SEC_SERVICE, "cpu_max" },
	{ SEC_SERVICE, "io_weight" },
	{ SEC_SERVICE, "limit_as" },
	{ SEC_SERVICE, "limit_core" },
	{ SEC_SERVICE, "limit_cpu" },
	{ SEC_SERVICE, "limit_data" },
	{ SEC_SERVICE, "limit_fsize" },
	{ SEC_SERVICE, "limit_locks" },
	{ SEC_SERVICE, "limit_memlock" },
	{ SEC_SERVICE, "limit_msgqueue" },
	{ SEC_SERVICE, "limit_nice" },
	{ SEC_SERVICE, "limit_nproc" },
	{ SEC_SERVICE, "limit_rss" },
	{ SEC_SERVICE, "limit_rtprio" },
	{ SEC_SERVICE, "limit_rttime" },
	{ SEC_SERVICE, "limit_sigpending" },
	{ SEC_SERVICE, "limit_stack" },
	{ SEC_SERVICE, "listen" },
	{ SEC_SERVICE, "listen_backlog" },
	{ SEC_SERVICE, "listen_owner" },
	{ SEC_SERVICE, "listen_mode" },
	{ SEC_SERVICE, "on_demand" },
	{ SEC_SERVICE, "accept" },
	{ SEC_SERVICE, "max_connections" },
	{ SEC_SERVICE, "fdstore_max" },
	{ SEC_SUPERVISOR, "pressure_critical" },
	{ SEC_SUPERVISOR, "pressure_min_available" },
	{ SEC_SUPERVISOR, "pressure_min_priority" },
	{ SEC_SUPERVISOR, "pressure_policy" },
	{ SEC_SERVICE, "memory_pressure_watch" },
	{ SEC_SERVICE, "memory_pressure_threshold" },
};

/*
 * Version 6's given keys (two words of bits, by keys6's order) as ours:
 * a key it had that we do not is left (none is, as of this release).
 */
void
conf_keys_given6(struct st_r *r, struct keyset *given)
{
	const struct conf_key	*k;
	uint64_t		 w[2] = { 0, 0 };
	size_t			 i;

	memset(given, 0, sizeof(*given));
	st_get_u64(r, "given0", &w[0]);
	st_get_u64(r, "given1", &w[1]);
	for (i = 0; i < sizeof(keys6) / sizeof(keys6[0]); i++)
		if ((w[i / 64] >> (i % 64) & 1) &&
		    (k = conf_key_find(keys6[i].section, keys6[i].name)) != NULL)
			keyset_add(given, (unsigned)(k - conf_keys));
}
