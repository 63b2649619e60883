/* bench/floor_job_submit.c - the least a job_submit plugin can be: it
 * accepts every job and changes nothing (see bench/floor_spank.c).  Slurm
 * loads it by its plugin_type; built by bench/sbatch.sh only. */
#include <stdint.h>
#include <slurm/slurm.h>

const char plugin_name[] = "job_submit floor (bench)";
const char plugin_type[] = "job_submit/floor";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg);
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg);

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	(void) job_desc;
	(void) submit_uid;
	(void) err_msg;
	return SLURM_SUCCESS;
}

int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid, char **err_msg)
{
	(void) job_desc;
	(void) job_ptr;
	(void) submit_uid;
	(void) err_msg;
	return SLURM_SUCCESS;
}
