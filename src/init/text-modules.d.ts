/** Shell scripts imported as text (`with { type: "text" }`): slp init writes the repository's tcr.sh. */
declare module "*.sh" {
  const text: string;
  export default text;
}
