// conformance.js - drive the emulator with Google's own Node.js client
// (`googleapis`, generated from the discovery document) and report what
// the client saw, one JSON object per line, for tests/sh/emu/pr_node_conformance.t.
//
//   NODE_PATH=CACHE/node_modules node conformance.js ENDPOINT PROJECT REGION SPEC.json NUMBER
//
// NUMBER is the project number the emulator gives PROJECT.  The emulator's
// test controls (/emulator/v1/..., not part of the API) are called with
// plain http to take capacity away for the cancel step.
//
// Every call goes through the client's own request/response handling, so a
// response it cannot accept (bad status, unparsable body) throws and the
// script exits non-zero with the error on stderr.
'use strict';

const fs = require('fs');
const { google } = require('googleapis');

const http = require('http');

const [endpoint, project, region, specPath, projectNumber] = process.argv.slice(2);
if (!projectNumber) {
  console.error('usage: conformance.js ENDPOINT PROJECT REGION SPEC.json NUMBER');
  process.exit(2);
}
const rootUrl = endpoint.replace(/\/?$/, '/');
// a dummy bearer token: the emulator on loopback needs no real credentials
const auth = new google.auth.OAuth2();
auth.setCredentials({ access_token: 'dummy-token', expiry_date: Date.now() + 3600e3 });
const v1 = google.aiplatform({ version: 'v1', rootUrl, auth });
const v1beta1 = google.aiplatform({ version: 'v1beta1', rootUrl, auth });
const parent = `projects/${project}/locations/${region}`;

function report(step, data) {
  process.stdout.write(JSON.stringify({ step, data }) + '\n');
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitOp(name) {
  for (let i = 0; i < 200; i++) {
    const res = await v1.projects.locations.persistentResources.operations.get({ name });
    if (res.data.done) return res.data;
    await sleep(50);
  }
  throw new Error(`operation ${name} not done in time`);
}

async function waitOpAt(get, name) {
  for (let i = 0; i < 200; i++) {
    const res = await get({ name });
    if (res.data.done) return res.data;
    await sleep(50);
  }
  throw new Error(`operation ${name} not done in time`);
}

// poll a pipeline job until STATE (bounded: 20 s)
async function waitJob(name, state) {
  let res;
  for (let i = 0; i < 400; i++) {
    res = await v1beta1.projects.locations.pipelineJobs.get({ name });
    if (res.data.state === state) return res.data;
    await sleep(50);
  }
  throw new Error(`pipeline job ${name} is ${res.data.state}, not ${state}, after 20 s`);
}

// POST to the emulator's test controls (not part of the API)
function control(path, body) {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, rootUrl), { method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) } },
    (res) => { res.resume(); res.on('end', () => (res.statusCode === 200 ? resolve() :
      reject(new Error(`${path}: HTTP ${res.statusCode}`)))); });
    req.on('error', reject);
    req.end(data);
  });
}

async function main() {
  const pr = v1.projects.locations.persistentResources;

  let res = await pr.create({
    parent,
    persistentResourceId: 'node-pr',
    requestBody: {
      displayName: 'made by googleapis',
      resourcePools: [
        { machineSpec: { machineType: 'n1-standard-4' }, replicaCount: '2' },
        {
          id: 'gpu',
          machineSpec: { machineType: 'n1-standard-8', acceleratorType: 'NVIDIA_TESLA_T4', acceleratorCount: 1 },
          autoscalingSpec: { minReplicaCount: '1', maxReplicaCount: '3' },
        },
      ],
      resourceRuntimeSpec: { serviceAccountSpec: { enableCustomServiceAccount: true } },
      labels: { origin: 'node' },
    },
  });
  report('create', { status: res.status, name: res.data.name, done: res.data.done,
    metadataType: res.data.metadata && res.data.metadata['@type'] });
  const op = await waitOp(res.data.name);
  report('create-op', { done: op.done, state: op.response && op.response.state,
    responseType: op.response && op.response['@type'] });

  res = await pr.get({ name: `${parent}/persistentResources/node-pr` });
  const res0Pools = res.data.resourcePools;
  report('get', { status: res.status, name: res.data.name, state: res.data.state,
    pools: res.data.resourcePools.length,
    gpuMax: res.data.resourcePools[1].autoscalingSpec.maxReplicaCount,
    customSa: res.data.resourceRuntimeSpec.serviceAccountSpec.enableCustomServiceAccount });

  res = await pr.list({ parent, pageSize: 1 });
  const names = res.data.persistentResources.map((r) => r.name);
  let token = res.data.nextPageToken;
  while (token) {
    const page = await pr.list({ parent, pageSize: 1, pageToken: token });
    names.push(...page.data.persistentResources.map((r) => r.name));
    token = page.data.nextPageToken;
  }
  report('list', { names });

  // a pipeline run on the persistent resource (P5), through v1beta1
  const pipelineSpec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  res = await v1beta1.projects.locations.pipelineJobs.create({
    parent,
    pipelineJobId: 'node-run',
    requestBody: {
      displayName: 'node run',
      pipelineSpec,
      runtimeConfig: {
        gcsOutputDirectory: 'gs://bucket/node',
        parameterValues: { project_id: project, learning_rate: 0.1 },
        defaultRuntime: {
          persistentResourceRuntimeDetail: {
            persistentResourceName: `${parent}/persistentResources/node-pr`,
            taskResourceUnavailableWaitTimeMs: '600000',
            taskResourceUnavailableTimeoutBehavior: 'FALL_BACK_TO_ON_DEMAND',
          },
        },
      },
    },
  });
  report('job-create', { status: res.status, name: res.data.name, state: res.data.state });
  res = await v1beta1.projects.locations.pipelineJobs.get({ name: `${parent}/pipelineJobs/node-run` });
  const d = res.data.runtimeConfig.defaultRuntime.persistentResourceRuntimeDetail;
  report('job-get', { state: res.data.state, resource: d.persistentResourceName,
    behavior: d.taskResourceUnavailableTimeoutBehavior,
    pipelineName: res.data.pipelineSpec.pipelineInfo.name });

  // UpdatePersistentResource (v1beta1 patch), followed by its location-scoped operation name
  const prb = v1beta1.projects.locations.persistentResources;
  res = await prb.patch({
    name: `${parent}/persistentResources/node-pr`,
    updateMask: 'resourcePools,labels',
    requestBody: {
      resourcePools: [
        { id: res0Pools[0].id, replicaCount: '3' },
        { id: 'gpu', autoscalingSpec: { minReplicaCount: '1', maxReplicaCount: '5' } },
      ],
      labels: { origin: 'node', updated: 'yes' },
    },
  });
  report('update', { status: res.status, done: res.data.done,
    metadataType: res.data.metadata && res.data.metadata['@type'] });
  const opId = res.data.name.split('/').pop();
  const upd = await waitOpAt((p) => v1beta1.projects.locations.operations.get(p),
    `${parent}/operations/${opId}`);
  report('update-op', { done: upd.done, name: upd.name, state: upd.response && upd.response.state,
    responseType: upd.response && upd.response['@type'] });
  res = await prb.get({ name: `projects/${projectNumber}/locations/${region}/persistentResources/node-pr` });
  report('update-get', { name: res.data.name, state: res.data.state,
    replicas: res.data.resourcePools[0].replicaCount,
    gpuMax: res.data.resourcePools[1].autoscalingSpec.maxReplicaCount, labels: res.data.labels });

  // a pipeline run that lives: PENDING -> RUNNING -> SUCCEEDED
  const jobs = v1beta1.projects.locations.pipelineJobs;
  const jobBody = (wait, behavior) => ({
    displayName: 'node life', pipelineSpec, labels: { origin: 'node' },
    runtimeConfig: {
      gcsOutputDirectory: 'gs://bucket/node',
      parameterValues: { project_id: project, learning_rate: 0.1 },
      defaultRuntime: { persistentResourceRuntimeDetail: {
        persistentResourceName: `projects/${projectNumber}/locations/${region}/persistentResources/node-pr`,
        taskResourceUnavailableWaitTimeMs: wait, taskResourceUnavailableTimeoutBehavior: behavior } },
    },
  });
  res = await jobs.create({ parent, pipelineJobId: 'node-life', requestBody: jobBody('600000', 'FAIL') });
  const life = await waitJob(`${parent}/pipelineJobs/node-life`, 'PIPELINE_STATE_SUCCEEDED');
  report('life', { created: res.data.state, state: life.state, started: !!life.startTime, ended: !!life.endTime,
    resource: life.runtimeConfig.defaultRuntime.persistentResourceRuntimeDetail.persistentResourceName,
    tasks: life.jobDetail.taskDetails.map((t) => `${t.taskName} ${t.state}`) });
  res = await jobs.list({ parent, filter: 'state="PIPELINE_STATE_SUCCEEDED" AND labels.origin="node"',
    orderBy: 'create_time desc', readMask: 'name,state' });
  report('life-list', { jobs: res.data.pipelineJobs.map((j) => Object.keys(j).sort().join(',') + ' ' + j.name) });

  // cancel a run that waits for capacity, then delete it; batchDelete the other
  await control('/emulator/v1/persistentResources:capacity',
    { name: `${parent}/persistentResources/node-pr`, available: false });
  await jobs.create({ parent, pipelineJobId: 'node-cancel', requestBody: jobBody('600000', 'FAIL') });
  res = await jobs.cancel({ name: `${parent}/pipelineJobs/node-cancel`, requestBody: {} });
  const cancelStatus = res.status;
  const cancelled = await waitJob(`${parent}/pipelineJobs/node-cancel`, 'PIPELINE_STATE_CANCELLED');
  await control('/emulator/v1/persistentResources:capacity',
    { name: `${parent}/persistentResources/node-pr`, available: true });
  report('cancel', { status: cancelStatus, state: cancelled.state, code: cancelled.error && cancelled.error.code });
  res = await jobs.delete({ name: `${parent}/pipelineJobs/node-cancel` });
  const jdel = await waitOpAt((p) => v1beta1.projects.locations.operations.get(p), res.data.name);
  report('job-delete', { done: jdel.done, metadataType: jdel.metadata['@type'] });
  res = await jobs.batchDelete({ parent, requestBody: { names: [`${parent}/pipelineJobs/node-life`] } });
  const bdel = await waitOpAt((p) => v1beta1.projects.locations.operations.get(p), res.data.name);
  let lifeGone = null;
  try {
    await jobs.get({ name: `${parent}/pipelineJobs/node-life` });
  } catch (e) {
    lifeGone = e.code || (e.response && e.response.status);
  }
  report('batch-delete', { responseType: bdel.response['@type'],
    deleted: bdel.response.pipelineJobs.map((j) => j.name), lifeGone });

  // delete: a second resource, gone afterwards (404 through the client)
  res = await pr.create({
    parent, persistentResourceId: 'node-tmp',
    requestBody: { resourcePools: [{ machineSpec: { machineType: 'e2-standard-4' }, replicaCount: '1' }] },
  });
  await waitOp(res.data.name);
  res = await pr.delete({ name: `${parent}/persistentResources/node-tmp` });
  const del = await waitOp(res.data.name);
  let gone = null;
  try {
    await pr.get({ name: `${parent}/persistentResources/node-tmp` });
  } catch (e) {
    gone = { code: e.code || (e.response && e.response.status),
      status: e.response && e.response.data && e.response.data.error && e.response.data.error.status };
  }
  report('delete', { done: del.done, metadataType: del.metadata['@type'], gone });

  // a refusal in Google's error form, as the client surfaces it
  let refused = null;
  try {
    await pr.create({
      parent, persistentResourceId: 'Bad_Id',
      requestBody: { resourcePools: [{ machineSpec: { machineType: 'n1' }, replicaCount: '1' }] },
    });
  } catch (e) {
    refused = { code: e.code || (e.response && e.response.status),
      status: e.response && e.response.data && e.response.data.error && e.response.data.error.status };
  }
  report('refused', refused);
}

main().catch((e) => {
  console.error(`conformance: ${e.stack || e}`);
  if (e.response) console.error(JSON.stringify(e.response.data));
  process.exit(1);
});
