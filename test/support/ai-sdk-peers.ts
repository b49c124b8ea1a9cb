import type { AISDKLanguageModel } from "tollgate/ai-sdk";
import { aiSdkPeersMissing, INSTALL_COMMAND } from "../../bench/peers.js";

/**
 * The AI SDK packages (`ai`, `@ai-sdk/openai`, `@ai-sdk/anthropic`) live in bench/'s own npm
 * project (their engines ask for Node 22; bench/peers.ts says why) and vitest.config.ts
 * resolves them from bench/node_modules. Without them a test file's cases are skipped and say
 * so; under TOLLGATE_REQUIRE_PEERS=1 (CI) a missing peer fails the file instead.
 */
export function aiSdkSkipReason(file: string): string {
  const missing = aiSdkPeersMissing();
  if (missing === undefined) return "";
  if (process.env.TOLLGATE_REQUIRE_PEERS === "1") {
    throw new Error(
      `TOLLGATE_REQUIRE_PEERS=1 and ${missing}: run \`${INSTALL_COMMAND}\` (the real AI SDK packages ${file} wraps)`,
    );
  }
  const reason = ` (SKIPPED: ${missing}; run \`${INSTALL_COMMAND}\` to test against the real AI SDK)`;
  console.warn(`${file}${reason}`);
  return reason;
}

/**
 * Loads a peer. The specifier is a variable so that `npm run typecheck` needs no peer installed
 * (each test declares the types it uses of them); vitest resolves it through its alias.
 */
export const loadPeer = async <T>(specifier: string) =>
  (await import(/* @vite-ignore */ specifier)) as T;

/** What the tests use of `@ai-sdk/openai`. */
export interface OpenAIPackage {
  createOpenAI(options: { baseURL: string; apiKey: string }): {
    chat(model: string): AISDKLanguageModel;
  };
}
/** What the tests use of `@ai-sdk/anthropic`. */
export interface AnthropicPackage {
  createAnthropic(options: {
    baseURL: string;
    apiKey: string;
  }): (model: string) => AISDKLanguageModel;
}

/** The real `@ai-sdk/openai` and `@ai-sdk/anthropic`, or nothing when `skipReason` says they are missing. */
export async function loadProviderPackages(skipReason: string): Promise<{
  openaiPackage: OpenAIPackage | undefined;
  anthropicPackage: AnthropicPackage | undefined;
}> {
  if (skipReason !== "") return { openaiPackage: undefined, anthropicPackage: undefined };
  return {
    openaiPackage: await loadPeer<OpenAIPackage>("@ai-sdk/openai"),
    anthropicPackage: await loadPeer<AnthropicPackage>("@ai-sdk/anthropic"),
  };
}
