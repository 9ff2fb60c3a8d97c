import getClusterJoinToken from "./get-cluster-join-token.ts";
import getConfigNodeYaml from "./get-config-node-yaml.ts";
import getConfigReview from "./get-config-review.ts";
import getConfigSchema from "./get-config-schema.ts";
import getConfig from "./get-config.ts";
import getConsoleScript from "./get-console-script.ts";
import getConsoleStyles from "./get-console-styles.ts";
import getConsole from "./get-console.ts";
import getHealthz from "./get-healthz.ts";
import getInstallAttempts from "./get-install-attempts.ts";
import getInstallEvents from "./get-install-events.ts";
import getInstallReport from "./get-install-report.ts";
import getInstallVerdict from "./get-install-verdict.ts";
import getOpenApi from "./get-openapi.ts";
import getOptions from "./get-options.ts";
import getSchemasNodeYaml from "./get-schemas-node-yaml.ts";
import getStatus from "./get-status.ts";
import getSupportBundle from "./get-support-bundle.ts";
import getTls from "./get-tls.ts";
import patchConfig from "./patch-config.ts";
import postClusterJoinCheck from "./post-cluster-join-check.ts";
import postConfigValidate from "./post-config-validate.ts";
import postInstallRecheckReadiness from "./post-install-recheck-readiness.ts";
import postInstall from "./post-install.ts";
import putConfigNodeYaml from "./put-config-node-yaml.ts";
import putConfig from "./put-config.ts";

/** Every endpoint of the API, in the order of the OpenAPI document. */
export const ROUTES = [
  getHealthz,
  getOpenApi,
  getSchemasNodeYaml,
  getTls,
  getConsole,
  getConsoleScript,
  getConsoleStyles,
  getStatus,
  getOptions,
  getConfig,
  putConfig,
  patchConfig,
  postConfigValidate,
  getConfigNodeYaml,
  getConfigReview,
  putConfigNodeYaml,
  getConfigSchema,
  postInstall,
  postInstallRecheckReadiness,
  getInstallEvents,
  getInstallVerdict,
  getInstallReport,
  getInstallAttempts,
  postClusterJoinCheck,
  getClusterJoinToken,
  getSupportBundle,
] as const;
