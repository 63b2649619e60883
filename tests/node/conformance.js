// conformance.js - drive the emulator with Google's own Node.js client
// (`googleapis`, generated from the discovery document) and report what
// the client saw, one JSON object per line, for tests/sh/pr_node_conformance.t.
//
//   NODE_PATH=CACHE/node_modules node conformance.js ENDPOINT PROJECT REGION SPEC.json
//
// Every call goes through the client's own request/response handling, so a
// response it cannot accept (bad status, unparsable body) throws and the
// script exits non-zero with the error on stderr.
'use strict';

const fs = require('fs');
const { google } = require('googleapis');

const [endpoint, project, region, specPath] = process.argv.slice(2);
if (!specPath) {
  console.error('usage: conformance.js ENDPOINT PROJECT REGION SPEC.json');
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
