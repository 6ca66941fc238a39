/* rmtree.h - a stopped service's runtime_directory removed (rmtree.c) */
#ifndef PIDVISOR_RMTREE_H
#define PIDVISOR_RMTREE_H

/* `pidvisor --remove-directories PATH... [--remove-ipc UID GID]`: exit
 * 0, or 1 (each said). */
int	rmtree_main(int argc, char **argv);

#endif
