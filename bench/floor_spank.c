/* bench/floor_spank.c - the least a SPANK plugin can be: it registers
 * options of the same kinds as spank_mdc (three taking a value, one flag)
 * and does nothing else.  bench/sbatch.sh loads it into a third lab, with
 * bench/floor_job_submit.c, to tell what Slurm charges any pair of plugins
 * from what ours cost beyond that.  Built by bench/sbatch.sh only. */
#include <stddef.h>
#include <slurm/spank.h>

SPANK_PLUGIN(floor, 1);

static int floor_cb(int val, const char *optarg, int remote)
{
	(void) val;
	(void) optarg;
	(void) remote;
	return 0;
}

static struct spank_option floor_opts[] = {
	{ "floor-wait-time", "DURATION", "bench only", 1, 0, floor_cb },
	{ "floor-on-timeout", "ACTION", "bench only", 1, 1, floor_cb },
	{ "floor-fallback-partition", "NAME", "bench only", 1, 2, floor_cb },
	{ "floor-managed-only", NULL, "bench only", 0, 3, floor_cb },
	SPANK_OPTIONS_TABLE_END
};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	(void) ac;
	(void) av;
	for (size_t i = 0; floor_opts[i].name; i++)
		if (spank_option_register(sp, &floor_opts[i]) != ESPANK_SUCCESS)
			return -1;
	return 0;
}
