import { twice } from "./lib";

export function  add(a:number,b:number){return a+b}

console.log(twice(add(1,2)));
