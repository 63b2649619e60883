/* bench/jobs_submit.c - N held batch jobs to PARTITION through libslurm,
 * one RPC each from one process: sbatch's exec, plugin loading and option
 * parsing would make a 10,000-job queue take a quarter of an hour on a
 * loaded two-core machine.  Built and run by bench/jobs.sh only.
 *
 *   jobs_submit N PARTITION      prints the number submitted */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	long n, done = 0;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: jobs_submit N PARTITION\n");
		return 2;
	}
	slurm_init(NULL);
	for (long i = 0; i < n; i++) {
		job_desc_msg_t d;
		submit_response_msg_t *r = NULL;

		slurm_init_job_desc_msg(&d);
		d.name = "b";
		d.partition = argv[2];
		d.script = "#!/bin/sh\ntrue\n";
		d.priority = 0;		/* held, as sbatch -H */
		d.time_limit = 1;
		d.min_nodes = 1;
		d.user_id = getuid();
		d.group_id = getgid();
		d.work_dir = "/tmp";
		d.environment = env;
		d.env_size = 1;
		if (slurm_submit_batch_job(&d, &r) != SLURM_SUCCESS) {
			fprintf(stderr, "jobs_submit: job %ld: %s\n", i + 1,
				slurm_strerror(slurm_get_errno()));
			break;
		}
		slurm_free_submit_response_response_msg(r);
		done++;
	}
	printf("%ld\n", done);
	slurm_fini();
	return done == n ? 0 : 1;
}
