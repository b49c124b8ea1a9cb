/** The pages of the repository files the guides link to (docs/.vitepress/repo-files.mts). */
import { repoPages } from "../.vitepress/repo-files.mts";

export default { paths: repoPages };
