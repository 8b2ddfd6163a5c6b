/* The command line: `tasknet COMMAND ...`. The only place that prints to
 * the user; models and core return statuses and messages. */
#ifndef TASKNET_CLI_H
#define TASKNET_CLI_H

/* Exit status: 0 success, 1 a run or the configuration failed, 2 usage. */
int cli_main(int argc, char **argv);

#endif
