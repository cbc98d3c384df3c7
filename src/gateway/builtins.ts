// Registers the gateway's admission policies (tier-shed, gaie-legacy) after the cluster's built-in
// ones, the order of the --help list; import this module for the full set of built-ins.
import "../cluster/builtins.js";
import { admissionPolicies } from "../cluster/admission/admission.js";
import { gaieLegacy, tierShed } from "./admissionPolicies.js";
import type { ParamsOf } from "../util/policyRegistry.js";

/** The parameters of the gateway's admission policies. */
export type GatewayPolicyParams = ParamsOf<typeof tierShed> & ParamsOf<typeof gaieLegacy>;

admissionPolicies.register(tierShed);
admissionPolicies.register(gaieLegacy);
